package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
)

// TestServeRefusesFlags: flag combinations that cannot be served exit 2 before anything
// starts, with a message that says what to change.
func TestServeRefusesFlags(t *testing.T) {
	t.Setenv("CWX_HOME", t.TempDir())
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "cwx serve needs --mcp"},
		{[]string{"serve", "--mcp", "--allow-remote"}, "need --http"},
		{[]string{"serve", "--mcp", "--allow-origin", "https://x.example"}, "need --http"},
		{[]string{"serve", "--mcp", "--http", "0.0.0.0:8080"}, "not a loopback address; pass --allow-remote"},
		{[]string{"serve", "--mcp", "--http", "192.168.1.2:8080", "--allow-remote"}, "--allow-remote requires TLS"},
		{[]string{"serve", "--mcp", "--http", "127.0.0.1:0", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"serve", "--mcp", "--approve-extensions"}, "--approve-extensions only goes with --approve auto"},
		{[]string{"serve", "--mcp", "--approve", "ask", "--approve-extensions"}, "--approve-extensions only goes with --approve auto"},
		{[]string{"serve", "--mcp", "--approve", "maybe"}, "unknown approval posture"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(c.args...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("cwx %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, stdout, stderr, c.want)
		}
	}
}

// TestApprovalNotice: what serve prints at start for each posture; extension tools are
// never said to be approved silently without --approve-extensions.
func TestApprovalNotice(t *testing.T) {
	cases := []struct {
		posture    gate.Posture
		approveExt bool
		want       string
	}{
		{gate.Ask, false, "approval: ask (tools that need approval are asked by elicitation"},
		{gate.Deny, false, "approval: deny"},
		{gate.Auto, false, "tools that need approval are still asked by elicitation, or refused"},
		{gate.Auto, true, "extension tools included, are approved WITHOUT asking; calls asked every time (the native `shell`"},
	}
	for _, c := range cases {
		if got := approvalNotice(c.posture, c.approveExt); !strings.Contains(got, c.want) {
			t.Errorf("%s, --approve-extensions=%v: %q, want %q", c.posture, c.approveExt, got, c.want)
		}
	}
}

// TestServeFallbackNamesTheOrigin: the refusal serve gives a client without elicitation names
// the call by its origin (the native shell is no extension tool, a core/call is the asking
// plugin's request of a native tool, a builtin module's tool is the module's), and advises
// --approve-extensions only for a call the posture can approve: a forced one gets no flag.
func TestServeFallbackNamesTheOrigin(t *testing.T) {
	cases := []struct {
		name string
		req  gate.Request
	}{
		{"native shell", gate.Request{Tool: "shell", Native: true, Requirement: gate.Forced}},
		{"native, required", gate.Request{Tool: "write_notes", Native: true, Requirement: gate.Required}},
		{"extension", gate.Request{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet", Requirement: gate.Required}},
		{"extension, a hook asked", gate.Request{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet", Requirement: gate.Forced}},
		{"extension of a dev session", gate.Request{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet", Requirement: gate.Required, Dev: true}},
		{"builtin module", gate.Request{PluginID: "host:script-tools", ClosureSHA256: "c2", Tool: "word_count", Builtin: true, Requirement: gate.Required}},
		{"core/call of shell", gate.Request{PluginID: "hello", ClosureSHA256: "c1", Tool: "shell", Native: true, Requirement: gate.Forced,
			Caller: &gate.Caller{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet"}}},
	}
	var b strings.Builder
	for _, p := range []gate.Posture{gate.Ask, gate.Auto} {
		for _, ext := range []bool{false, true} {
			if ext && p != gate.Auto {
				continue
			}
			fmt.Fprintf(&b, "notice %s, --approve-extensions=%v: %s\n", p, ext, approvalNotice(p, ext))
		}
	}
	for _, c := range cases {
		card := gate.NewCard(c.req, "key", []byte("{}"))
		_, err := serveFallback(gate.Ask).Approve(context.Background(), card)
		fmt.Fprintf(&b, "%s: %v\n", c.name, err)
		if (c.req.Requirement == gate.Forced || c.req.Dev) && strings.Contains(err.Error(), "--approve") {
			t.Errorf("%s: a call asked every time is advised a flag that never approves it: %v", c.name, err)
		}
		if c.req.Native && strings.Contains(err.Error(), "extension tool") {
			t.Errorf("%s: a native tool named as an extension tool: %v", c.name, err)
		}
	}
	checkGolden(t, "serve-refusals.golden", []byte(b.String()))
}
