package core

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestBigResults: a 20 MiB string result arrives intact (it is sent once, as text, with no
// structured copy); a result over the frame limit is answered at once with ExecutionFailed
// naming its size, on the tool that produced it, and the host goes on serving.
func TestBigResults(t *testing.T) {
	const mib = 1 << 20
	tooLarge := regexp.MustCompile(`^result of (\d+) bytes exceeds the 32 MiB frame limit$`)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("big-result")
		m := e.open(nil)
		reconcile(t, m)
		before := m.Host(protocol.TierPlugin)
		cases := []struct {
			name     string
			input    string
			text     int  // length of an intact string result
			tooLarge bool // answered ExecutionFailed at once
			object   bool // text and structured: may run out of memory before it is measured
		}{
			{"20 MiB string", fmt.Sprintf(`{"bytes":%d}`, 20*mib), 20 * mib, false, false},
			{"33 MiB string", fmt.Sprintf(`{"bytes":%d}`, 33*mib), 0, true, false},
			{"20 MiB object (text and structured)", fmt.Sprintf(`{"bytes":%d,"object":true}`, 20*mib), 0, true, true},
			{"small string", `{"bytes":5}`, 5, false, false},
		}
		for _, c := range cases {
			begin := time.Now()
			res, err := m.CallTool(context.Background(), "big_result", input(c.input), CallOptions{})
			took := time.Since(begin)
			t.Logf("%s: answered after %v", c.name, took.Round(time.Millisecond))
			if c.tooLarge {
				var ee *ExecutionError
				if !errors.Is(err, ErrExecutionFailed) || !errors.As(err, &ee) || ee.Name != "big_result" {
					t.Fatalf("%s: %v", c.name, err)
				}
				// The object's text and structured copy (40 MiB) are measured before a buffer
				// is allocated; on a loaded machine V8 may run out of memory first, while
				// measuring, which the host answers the same way at once, naming it.
				sub := tooLarge.FindStringSubmatch(ee.Message)
				oom := c.object && ee.Message == "result could not be encoded: RangeError: Out of memory"
				if !oom && (sub == nil || len(sub[1]) < 8) {
					t.Fatalf("%s: message %q", c.name, ee.Message)
				}
				if took > 20*time.Second {
					t.Fatalf("%s: answered after %v", c.name, took)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := strings.Repeat("abcdefghijklmnop", c.text/16+1)[:c.text]
			if res.Text() != want || res.Structured != nil {
				t.Fatalf("%s: text of %d bytes intact %t, structured %d bytes", c.name, len(res.Text()), res.Text() == want, len(res.Structured))
			}
		}
		if after := m.Host(protocol.TierPlugin); after.Generation != before.Generation || after.Crashes != 0 {
			t.Fatalf("host %+v → %+v: a big result cost the host", before, after)
		}
	})
}
