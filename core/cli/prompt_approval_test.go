package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/gate"
)

// TestApprovalPromptGoldens: the card `cwx tool call` shows on a terminal names every
// choice, y is asked again, and t allows the tool for the session; a forced card (shell)
// offers only once and deny. The fake core asks through a real gate, as the Manager does.
func TestApprovalPromptGoldens(t *testing.T) {
	const closure = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	cases := []struct {
		golden string
		tool   string
		stdin  string
		req    gate.Request
		want   gate.Source
	}{
		{"tool-call-approval.golden", "hello_greet", "y\nt\n",
			gate.Request{PluginID: "hello-extension", ClosureSHA256: closure, Tool: "hello_greet", Requirement: gate.Required, OtherPlugins: 1}, gate.ByApprover},
		{"tool-call-approval-forced.golden", "shell", "s\no\n",
			gate.Request{Tool: "shell", Native: true, Requirement: gate.Forced}, gate.ByApprover},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			withTerminal(t)
			t.Setenv("NO_COLOR", "1")
			f := newFakeCore()
			f.tools = append(demoTools(), core.ToolInfo{Name: "shell", Origin: core.OriginNative, InputSchema: json.RawMessage(`{"type":"object"}`)})
			g := gate.New(gate.Ask, nil)
			var grantedNext gate.Source
			f.call = func(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
				r := tc.req
				r.Input = input
				src, err := g.Check(ctx, r, o.Approver)
				if err != nil {
					return core.ToolResult{}, err
				}
				if src != tc.want {
					t.Errorf("approved by %s", src)
				}
				// The same tool with another input, in the same session.
				r.Input = []byte(`{"name":"someone else"}`)
				grantedNext, _ = g.Check(ctx, r, gate.ApproverFunc(func(context.Context, gate.Card) (gate.Decision, error) {
					return gate.DenyDecision, nil
				}))
				return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "ran"}}}, nil
			}
			useFake(t, f)
			var out, errb bytes.Buffer
			code := Main([]string{"tool", "call", tc.tool, "--input", `{"name":"Ada"}`}, strings.NewReader(tc.stdin), &out, &errb)
			if code != 0 || out.String() != "ran\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
			}
			checkGolden(t, tc.golden, errb.Bytes())
			wantNext := gate.ByToolGrant
			if tc.req.Requirement == gate.Forced {
				wantNext = "" // asked again, and denied
			}
			if grantedNext != wantNext {
				t.Errorf("the next call with another input: %q, want %q", grantedNext, wantNext)
			}
		})
	}
}
