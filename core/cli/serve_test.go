package cli

import (
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
		{gate.Ask, false, "approval: ask (extension tools are asked by elicitation"},
		{gate.Deny, false, "approval: deny"},
		{gate.Auto, false, "extension tools are still asked by elicitation, or refused"},
		{gate.Auto, true, "extension tools are approved WITHOUT asking"},
	}
	for _, c := range cases {
		if got := approvalNotice(c.posture, c.approveExt); !strings.Contains(got, c.want) {
			t.Errorf("%s, --approve-extensions=%v: %q, want %q", c.posture, c.approveExt, got, c.want)
		}
	}
}
