package nodeshim

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// TestWritePartReassembles checks that payload parts become exactly one CWX1 frame each,
// in order, and that inconsistent parts are refused.
func TestWritePartReassembles(t *testing.T) {
	var out bytes.Buffer
	w := bufio.NewWriterSize(&out, 16)
	want := 0
	parts := []*shimv1.Frame{
		{First: true, Size: 3, Data: []byte("abc")},
		{First: true, Size: 10, Data: []byte("0123")},
		{Data: []byte("4567")},
		{Data: []byte("89")},
		{First: true, Size: 0},
	}
	for i, p := range parts {
		if err := writePart(w, nil, p.First, p.Size, p.Data, &want); err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
	}
	r := frame.NewReader(&out)
	for _, exp := range []string{"abc", "0123456789", ""} {
		got, err := r.ReadFrame()
		if err != nil || string(got) != exp {
			t.Fatalf("frame %q, %v; want %q", got, err, exp)
		}
	}

	bad := []struct {
		name  string
		parts []*shimv1.Frame
		msg   string
	}{
		{"overlong_part", []*shimv1.Frame{{First: true, Size: 2, Data: []byte("abc")}}, "exceeds the 2 announced"},
		{"restart_midway", []*shimv1.Frame{{First: true, Size: 4, Data: []byte("ab")}, {First: true, Size: 1, Data: []byte("x")}}, "previous one missing"},
		{"too_large", []*shimv1.Frame{{First: true, Size: frame.MaxPayload + 1}}, "frame too large"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			var sink bytes.Buffer
			w := bufio.NewWriter(&sink)
			want := 0
			var err error
			for _, p := range c.parts {
				if err = writePart(w, nil, p.First, p.Size, p.Data, &want); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %v, want one containing %q", err, c.msg)
			}
		})
	}
}
