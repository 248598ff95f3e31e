package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/registry"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
)

func TestToolListGoldens(t *testing.T) {
	f := newFakeCore()
	f.tools = append(demoTools(), builtinNatives()...)
	useFake(t, f)
	checkGolden(t, "tool-list.golden", []byte(mustCLI(t, "tool", "list")))
	checkGolden(t, "tool-list-json.golden", []byte(mustCLI(t, "tool", "list", "--json")))

	empty := newFakeCore()
	useFake(t, empty)
	checkGolden(t, "tool-list-empty.golden", []byte(mustCLI(t, "tool", "list")))
}

func TestToolCallGoldens(t *testing.T) {
	f := newFakeCore()
	f.tools = demoTools()
	f.call = func(_ context.Context, name string, input json.RawMessage, _ core.CallOptions) (core.ToolResult, error) {
		return core.ToolResult{
			Content:    []core.ContentBlock{{Type: "text", Text: "Ahoy, \x1b]0;pwned\x07Ada\x1b[2J!"}},
			Structured: json.RawMessage(`{"text":"Ahoy, Ada!"}`),
		}, nil
	}
	useFake(t, f)
	checkGolden(t, "tool-call.golden", []byte(mustCLI(t, "tool", "call", "hello_greet", "--input", `{"name":"Ada"}`, "--approve", "auto")))
	checkGolden(t, "tool-call-json.golden", []byte(mustCLI(t, "tool", "call", "hello_greet", "--input", `{"name":"Ada"}`, "--json")))
	if !f.logged(`call hello_greet {"name":"Ada"}`) {
		t.Fatalf("calls: %q", f.log)
	}
}

// TestToolCallExitCodes covers every exit status (core/cli doc.go, “CLI conventions”) for
// `cwx tool call`.
func TestToolCallExitCodes(t *testing.T) {
	dir := t.TempDir()
	inputFile := filepath.Join(dir, "in.json")
	if err := os.WriteFile(inputFile, []byte(`{"name":"file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fail := func(err error) func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
		return func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
			return core.ToolResult{}, err
		}
	}
	cases := []struct {
		name string
		args []string
		call func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error)
		want int
		msg  string
	}{
		{"ok", []string{"--input", `{"name":"x"}`}, nil, ExitOK, ""},
		{"ok from file", []string{"--input-file", inputFile}, nil, ExitOK, ""},
		{"internal", nil, fail(errors.New("boom")), ExitInternal, "boom"},
		{"bad JSON", []string{"--input", `{"name":`}, nil, ExitUsage, "not valid JSON"},
		{"both inputs", []string{"--input", `{}`, "--input-file", inputFile}, nil, ExitUsage, "not both"},
		{"unreadable file", []string{"--input-file", filepath.Join(dir, "missing.json")}, nil, ExitUsage, "--input-file"},
		{"bad posture", []string{"--approve", "maybe"}, nil, ExitUsage, "use ask, auto or deny"},
		{"workspace missing", []string{"--workspace", filepath.Join(dir, "nope")}, nil, ExitUsage, "--workspace"},
		{"invalid input", nil, fail(fmt.Errorf("%w: at /name: expected string", registry.ErrInvalidInput)), ExitInvalid, "expected string"},
		{"denied", nil, fail(fmt.Errorf("%w: not approved", gate.ErrDenied)), ExitDenied, "not approved"},
		{"no terminal", nil, fail(fmt.Errorf("%w: %w", gate.ErrDenied, gate.ErrNoTerminal)), ExitDenied, "no terminal"},
		{"not available", nil, fail(fmt.Errorf("%w: host gone", core.ErrNotAvailable)), ExitUnavailable, "host gone"},
		{"host exited", nil, fail(fmt.Errorf("%w: killed", core.ErrHostExited)), ExitUnavailable, "killed"},
		{"no runtime", nil, fail(&jsruntime.NoRuntimeError{}), ExitUnavailable, ""},
		{"plugin failed", nil, fail(&core.ExecutionError{Name: "hello_greet", Message: "TypeError: \x1b[31mbad\x1b[0m"}), ExitPlugin, "TypeError: bad"},
		{"plugin error result", nil, func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
			return core.ToolResult{IsError: true, Content: []core.ContentBlock{{Type: "text", Text: "it broke"}}}, nil
		}, ExitPlugin, "reported an error"},
		{"timeout", nil, fail(fmt.Errorf("%w: 120s", core.ErrTimeout)), ExitTimeout, "120s"},
		{"cancelled", nil, fail(fmt.Errorf("%w: revoked", core.ErrCancelled)), ExitTimeout, "revoked"},
		{"bad config", nil, fail(&config.Error{Key: "extension_host.x", Reason: "unknown key"}), ExitInvalid, "cwx config check"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeCore()
			f.tools = demoTools()
			f.call = c.call
			useFake(t, f)
			r := runPluginCLI(t, append([]string{"tool", "call", "hello_greet"}, c.args...)...)
			if r.code != c.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, c.want, r.stdout, r.stderr)
			}
			if c.msg != "" && !strings.Contains(r.stderr, c.msg) {
				t.Fatalf("stderr %q does not say %q", r.stderr, c.msg)
			}
			if strings.ContainsRune(r.stdout+r.stderr, 0x1b) {
				t.Fatalf("an escape reached the terminal: %q", r.stdout+r.stderr)
			}
		})
	}
}

func TestToolCallUnknownToolIsUnavailable(t *testing.T) {
	f := newFakeCore()
	f.tools = demoTools()
	useFake(t, f)
	r := runPluginCLI(t, "tool", "call", "nope")
	if r.code != ExitUnavailable || !strings.Contains(r.stderr, `no live tool "nope"`) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	checkGolden(t, "tool-call-unavailable.golden", []byte(r.stderr))
	r = runPluginCLI(t, "tool", "call", "nope", "--json")
	if r.code != ExitUnavailable || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	checkGolden(t, "tool-call-unavailable-json.golden", []byte(r.stdout))
}

// TestToolCallWaitsOnlyForTheOwner: the call goes out as soon as its tool is live, while
// another plugin is still activating; the leftover reconcile is cancelled and joined before
// the command returns. A CLI that waited for the whole reconcile would give up after
// liveWait and fail the exit-code assertion; one that did not join would fail the last one.
func TestToolCallWaitsOnlyForTheOwner(t *testing.T) {
	f := newFakeCore()
	ended := make(chan struct{})
	var reconcileErr error
	f.reconcile = func(ctx context.Context, f *fakeCore) error {
		f.setTools(demoTools()...) // the owner of hello_greet is active
		<-ctx.Done()               // another plugin never finishes activating
		reconcileErr = ctx.Err()
		close(ended)
		return reconcileErr
	}
	lateCall := false
	f.call = func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
		select {
		case <-ended:
			lateCall = true
		default:
		}
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "Hello!"}}}, nil
	}
	useFake(t, f)
	r := runPluginCLI(t, "tool", "call", "hello_greet")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if lateCall {
		t.Fatal("the call went out only after the whole reconcile ended")
	}
	select {
	case <-ended:
		if !errors.Is(reconcileErr, context.Canceled) {
			t.Fatalf("reconcile ended with %v", reconcileErr)
		}
	default:
		t.Fatal("the command returned with the leftover reconcile still running")
	}
}

func TestToolCallPassesWorkspaceAndPrompter(t *testing.T) {
	f := newFakeCore()
	f.tools = demoTools()
	useFake(t, f)
	ws := t.TempDir()
	mustCLI(t, "tool", "call", "hello_greet", "--workspace", ws)
	o := f.opts[0]
	if o.Workspace != ws {
		t.Fatalf("workspace %q, want %q", o.Workspace, ws)
	}
	p, ok := o.Approver.(*gate.TerminalPrompter)
	if !ok || p.IsTerminal {
		t.Fatalf("approver %#v: want a terminal prompter that knows there is no terminal", o.Approver)
	}
}

func TestToolCallLargeResultOnTerminal(t *testing.T) {
	big := strings.Repeat("x", maxTerminalText+1)
	f := newFakeCore()
	f.tools = demoTools()
	f.call = func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: big}}}, nil
	}
	useFake(t, f)
	withTerminal(t)
	r := runPluginCLI(t, "tool", "call", "hello_greet")
	if r.code != ExitUsage || r.stdout != "" || !strings.Contains(r.stderr, "--output FILE") || !strings.Contains(r.stderr, "--json") {
		t.Fatalf("exit %d, %d bytes out, stderr %q", r.code, len(r.stdout), r.stderr)
	}
	out := filepath.Join(t.TempDir(), "result.txt")
	r = runPluginCLI(t, "tool", "call", "hello_greet", "--output", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(out); err != nil || len(b) != len(big) {
		t.Fatalf("saved %d bytes (%v), want %d", len(b), err, len(big))
	}
	r = runPluginCLI(t, "tool", "call", "hello_greet", "--json")
	var o ToolCallOutput
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &o) != nil || o.Content[0].Text != big {
		t.Fatalf("--json: exit %d, %d bytes", r.code, len(r.stdout))
	}
}

func TestWritePluginTextStripsEscapes(t *testing.T) {
	cases := map[string]string{
		"plain":               "plain\n",
		"a\x1b[31mred\x1b[0m": "ared\n",
		"title\x1b]0;x\x07!":  "title!\n",
		"bell\x07\rcr":        "bellcr\n",
		"rtl\u202eevil":       "rtlevil\n",
		"two\nlines\n":        "two\nlines\n",
	}
	for in, want := range cases {
		var b strings.Builder
		if err := writePluginText(&b, in); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("%q: got %q, want %q", in, b.String(), want)
		}
	}
}
