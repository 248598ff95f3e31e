package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// fakeClock replaces the progress line's timers: the 500 ms wait fires when the test says,
// and every tick is one the test sends (an unbuffered send returns once the line took it).
type fakeClock struct {
	mu     sync.Mutex
	waited []time.Duration
	fire   chan time.Time
	tick   chan time.Time
}

func useFakeClock(t *testing.T) *fakeClock {
	t.Helper()
	c := &fakeClock{fire: make(chan time.Time), tick: make(chan time.Time)}
	old := progressEnv
	progressEnv.after = func(d time.Duration) <-chan time.Time {
		c.mu.Lock()
		c.waited = append(c.waited, d)
		c.mu.Unlock()
		return c.fire
	}
	progressEnv.ticker = func(time.Duration) (<-chan time.Time, func()) { return c.tick, func() {} }
	start := time.Unix(0, 0)
	progressEnv.now = func() time.Time { start = start.Add(300 * time.Millisecond); return start }
	t.Cleanup(func() { progressEnv = old })
	return c
}

func TestProgressLineOnATerminal(t *testing.T) {
	withTerminal(t)
	t.Setenv("NO_COLOR", "1")
	c := useFakeClock(t)
	var w testenv.Buffer
	stop := startProgress(&w, "starting the enabled plugins")
	if inner := startProgress(&w, "inner"); inner == nil {
		t.Fatal("nil stop")
	} else {
		inner() // an inner operation keeps the outer line
	}
	c.fire <- time.Time{} // 500 ms passed
	c.tick <- time.Time{}
	resume := pauseProgress(&w) // a prompt takes the terminal: the line is erased
	afterPause := w.String()
	c.tick <- time.Time{} // no frame while paused
	if w.String() != afterPause {
		t.Fatalf("drawn while paused: %q", w.String())
	}
	resume()
	c.tick <- time.Time{}
	stop()
	stop() // twice is fine
	got := w.String()
	if !strings.HasPrefix(afterPause, "\r\x1b[K⠋ starting the enabled plugins (") || !strings.HasSuffix(afterPause, "s)\r\x1b[K") {
		t.Errorf("first frame, then the pause's erase: %q", afterPause)
	}
	if !strings.Contains(got[len(afterPause):], "⠹ starting the enabled plugins (") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("after resume: %q", got)
	}
	if strings.Contains(got, "inner") || strings.Contains(got, "\x1b[36m") {
		t.Errorf("the inner line or colour under NO_COLOR: %q", got)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waited) != 1 || c.waited[0] != progressAfter || progressAfter != 500*time.Millisecond {
		t.Errorf("waited %v before the first frame, want 500ms once", c.waited)
	}
}

func TestProgressLineQuickOperationDrawsNothing(t *testing.T) {
	withTerminal(t)
	useFakeClock(t)
	var w testenv.Buffer
	startProgress(&w, "quick")() // ends before the 500 ms wait fired
	if w.String() != "" {
		t.Fatalf("a quick operation drew %q", w.String())
	}
}

func TestProgressLineColour(t *testing.T) {
	colourEnv(t)
	withTerminal(t)
	c := useFakeClock(t)
	var w testenv.Buffer
	stop := startProgress(&w, "x")
	c.fire <- time.Time{}
	stop()
	if !strings.Contains(w.String(), "\x1b[36m⠋\x1b[0m x (") {
		t.Fatalf("no coloured spinner on a terminal: %q", w.String())
	}
}

func TestProgressLineNeverWithoutATerminal(t *testing.T) {
	c := useFakeClock(t)
	var w bytes.Buffer
	stop := startProgress(&w, "starting")
	resume := pauseProgress(&w)
	resume()
	stop()
	if w.Len() != 0 || len(c.waited) != 0 {
		t.Fatalf("drew %q (waited %v) on a stream that is not a terminal", w.String(), c.waited)
	}
}

// TestToolCallProgressOnTerminalOnly: a slow call shows the progress line on stderr, and it
// is erased before the result is printed; without a terminal stderr stays empty.
func TestToolCallProgressOnTerminalOnly(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		f := newFakeCore()
		f.tools = demoTools()
		c := useFakeClock(t)
		if terminal {
			withTerminal(t)
			t.Setenv("NO_COLOR", "1")
		}
		f.call = func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
			if terminal {
				c.fire <- time.Time{} // the call outlived 500 ms
				c.tick <- time.Time{}
			}
			return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "done"}}}, nil
		}
		useFake(t, f)
		r := runPluginCLI(t, "tool", "call", "hello_greet")
		if r.code != 0 || r.stdout != "done\n" {
			t.Fatalf("terminal %v: exit %d, stdout %q", terminal, r.code, r.stdout)
		}
		if terminal && (!strings.Contains(r.stderr, "\r\x1b[K⠋ running tool hello_greet (") || !strings.HasSuffix(r.stderr, "\r\x1b[K")) || !terminal && r.stderr != "" {
			t.Errorf("terminal %v: stderr %q", terminal, r.stderr)
		}
	}
}

// TestPromptsPauseTheProgressLine: the approval card and a plugin's question take the
// progress line off the terminal before they print, and it comes back after the answer.
func TestPromptsPauseTheProgressLine(t *testing.T) {
	withTerminal(t)
	t.Setenv("NO_COLOR", "1")
	prompts := []struct {
		name string
		ask  func(in *strings.Reader, out *testenv.Buffer) error
		head string
	}{
		{"approval", func(in *strings.Reader, out *testenv.Buffer) error {
			_, err := terminalPrompter(in, out).Approve(context.Background(), core.ApprovalCard{Title: "Extension tool `t` from plugin `p`", Input: "{}"})
			return err
		}, "\nExtension tool `t` from plugin `p`"},
		{"question", func(in *strings.Reader, out *testenv.Buffer) error {
			_, err := newTerminalAsker(in, out).Ask(context.Background(), core.Question{PluginID: "p", Kind: "tool", Name: "t", Text: "Which?"})
			return err
		}, "\nplugin `p` asks"},
	}
	for _, p := range prompts {
		t.Run(p.name, func(t *testing.T) {
			c := useFakeClock(t)
			var out testenv.Buffer
			stop := startProgress(&out, "running tool t")
			c.fire <- time.Time{} // the first frame
			if err := p.ask(strings.NewReader("o\n"), &out); err != nil {
				t.Fatal(err)
			}
			c.tick <- time.Time{} // drawn again after the answer
			stop()
			got := out.String()
			frame := "\r\x1b[K⠋ running tool t (0.3s)"
			if !strings.HasPrefix(got, frame+"\r\x1b[K"+p.head) {
				t.Fatalf("the line was not erased before the prompt:\n%q", got)
			}
			if !strings.HasSuffix(got, "⠙ running tool t (0.6s)\r\x1b[K") {
				t.Fatalf("the line did not come back after the answer:\n%q", got)
			}
		})
	}
}

// TestToolListProgressOnTerminalOnly: starting the plugins of `cwx tool list` and
// `cwx command list` shows the progress line on a terminal's stderr, erased before the table.
func TestToolListProgressOnTerminalOnly(t *testing.T) {
	for _, args := range [][]string{{"tool", "list"}, {"command", "list"}} {
		for _, terminal := range []bool{false, true} {
			f := newFakeCore()
			f.tools, f.commands = demoTools(), demoCommands()
			c := useFakeClock(t)
			if terminal {
				withTerminal(t)
				t.Setenv("NO_COLOR", "1")
			}
			f.reconcile = func(context.Context, *fakeCore) error {
				if terminal {
					c.fire <- time.Time{} // the start outlived 500 ms
				}
				return nil
			}
			useFake(t, f)
			r := runPluginCLI(t, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "hello") {
				t.Fatalf("%v terminal %v: exit %d, stdout %q", args, terminal, r.code, r.stdout)
			}
			want := ""
			if terminal {
				want = "\r\x1b[K⠋ starting the enabled plugins (0.3s)\r\x1b[K"
			}
			if r.stderr != want {
				t.Errorf("%v terminal %v: stderr %q, want %q", args, terminal, r.stderr, want)
			}
		}
	}
}
