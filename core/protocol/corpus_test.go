package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/cwx-dev/cwx/shared/frame"
)

const corpusDir = "../../testdata/protocol"

type corpusFile struct {
	name string
	c    *Case
}

func loadCorpus(t testing.TB) []corpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseCase(data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		out = append(out, corpusFile{filepath.Base(p), c})
	}
	return out
}

func TestCorpus(t *testing.T) {
	for _, f := range loadCorpus(t) {
		t.Run(f.name, func(t *testing.T) {
			for _, tier := range f.c.Tiers() {
				v := f.c.Check(tier)
				if !v.Agrees {
					t.Fatalf("tier %s: %s (reason: %q)", tier, v.Detail, v.Reason)
				}
				if f.c.Valid {
					checkReencode(t, f.c, v.Message)
				}
			}
		})
	}
}

// checkReencode: a valid frame re-encodes to the same JSON value (or to normalized) and
// frames with CWX1.
func checkReencode(t *testing.T, c *Case, m *Message) {
	t.Helper()
	out, err := EncodeMessage(m)
	if err != nil {
		t.Fatalf("re-encode: %v", err)
	}
	want := c.Frame
	if len(c.Normalized) > 0 {
		want = c.Normalized
	}
	if len(want) == 0 { // raw_base64: the exact bytes, an attachment included
		payload, err := c.Payload()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, payload) {
			t.Fatalf("re-encoded to\n  %q\nwant the bytes of raw_base64\n  %q", out, payload)
		}
	} else if !sameJSON(t, out, want) {
		t.Fatalf("re-encoded to\n  %s\nwant the same JSON value as\n  %s", out, want)
	}
	framed, err := frame.AppendHeader(nil, len(out))
	if err != nil {
		t.Fatal(err)
	}
	framed = append(framed, out...)
	if !bytes.HasPrefix(framed, []byte("CWX1")) {
		t.Fatalf("frame does not start with CWX1: %q", framed[:8])
	}
	got, err := frame.NewReader(bytes.NewReader(framed)).ReadFrame()
	if err != nil || !bytes.Equal(got, out) {
		t.Fatalf("frame round trip: %v", err)
	}
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(p []byte) any {
		dec := json.NewDecoder(bytes.NewReader(p))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("decode %s: %v", p, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

func TestCorpusCoverage(t *testing.T) {
	files := loadCorpus(t)
	valid, invalid := 0, 0
	covered := map[Pair]bool{}
	for _, f := range files {
		if f.c.Valid {
			valid++
		} else {
			invalid++
		}
		if len(f.c.Frame) == 0 {
			continue
		}
		var env struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(f.c.Frame, &env) == nil && env.Method != "" {
			covered[Pair{env.Method, f.c.Direction}] = true
		}
	}
	if len(files) < 70 || valid < 30 || invalid < 30 {
		t.Errorf("corpus has %d cases (%d valid, %d invalid); want >= 70, >= 30, >= 30", len(files), valid, invalid)
	}
	var missing []string
	for _, p := range Pairs() {
		if !covered[p] {
			missing = append(missing, p.Method+" ("+string(p.Direction)+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no corpus case sends these (method, direction) pairs: %v", missing)
	}
	t.Logf("corpus: %d cases, %d valid, %d invalid, %d pairs covered", len(files), valid, invalid, len(covered))
}
