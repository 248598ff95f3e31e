package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// mcpConfig is config.toml's server "t", this test binary as the test MCP server
// (package mcptest), with approval, and a PreToolUse command hook that sees the tool as
// Claude Code names it and denies a forbidden word.
func mcpConfig(t *testing.T, approval string, hook bool) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hooks := ""
	if hook {
		hooks = `
[[hooks.PreToolUse]]
matcher = "mcp__t__echo"
command = "input=$(cat); case \"$input\" in *'\"tool_name\":\"mcp__t__echo\"'*) ;; *) echo 'wrong tool name' >&2; exit 2;; esac; case \"$input\" in *forbidden*) echo 'no forbidden words' >&2; exit 2;; esac"
`
	}
	return hooks + fmt.Sprintf(`
[mcp.servers.t]
command = %q
env = {%s = "tools"}
approval = %q
`, exe, mcptest.ModeEnv, approval)
}

// mcpManager opens a Manager on that config; with hook, on a real runtime (command hooks
// run in the builtin tier) and reconciled.
func mcpManager(t *testing.T, approval string, hook bool, a Approver) (*Manager, *env) {
	t.Helper()
	rt := testenv.Runtime{Name: "node", Path: "/nonexistent/node"}
	if hook {
		rt = testenv.Node(t)
	}
	e := newEnv(t, rt)
	e.writeConfig(mcpConfig(t, approval, hook))
	m := e.open(func(o *Options) { o.PollInterval, o.Approval, o.Approver = -1, "ask", a })
	if hook {
		reconcile(t, m)
	}
	return m, e
}

func textOf(r ToolResult) string { return r.Text() }

// TestMCPToolThroughTheGate: a tool of an MCP server of config.toml is called through the
// gate: its card names the server, a command hook sees mcp__t__echo and can deny, invalid
// input is refused before any card, and a second Manager lists the tool from the catalog
// without starting the server.
func TestMCPToolThroughTheGate(t *testing.T) {
	a := &cardApprover{}
	m, e := mcpManager(t, "ask", true, a)
	if st := m.MCP().List(); len(st) != 1 || st[0].State != mcpclient.StateIdle || st[0].PID != 0 {
		t.Fatalf("before any call: %+v", st)
	}
	ctx := context.Background()
	res, err := m.CallTool(ctx, "mcp_t_echo", json.RawMessage(`{"text":"hello"}`), CallOptions{})
	if err != nil || textOf(res) != "hello" {
		t.Fatalf("echo: %q, %v", textOf(res), err)
	}
	if len(a.cards) != 1 || a.cards[0].Origin != gate.OriginMCP || !strings.Contains(a.cards[0].Title, "MCP server `t`") || a.cards[0].Tool != "echo" {
		t.Fatalf("cards = %+v", a.cards)
	}
	if ps := m.PromptSections(); !slices.ContainsFunc(ps, func(p PromptSection) bool {
		return p.PluginID == "mcp:t" && p.ID == "instructions" && p.Text == "use echo" && strings.Contains(p.Wrapped, "of plugin `mcp:t`")
	}) {
		t.Errorf("prompt sections lack the server's instructions: %+v", ps)
	}
	if _, err := m.CallTool(ctx, "mcp_t_echo", json.RawMessage(`{"text":"forbidden"}`), CallOptions{}); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "no forbidden words") {
		t.Fatalf("hook deny: %v", err)
	}
	if _, err := m.CallTool(ctx, "mcp_t_echo", json.RawMessage(`{"text":5}`), CallOptions{}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("invalid input: %v", err)
	}
	if len(a.cards) != 1 {
		t.Fatalf("a denied or invalid call raised a card: %d cards", len(a.cards))
	}
	if _, err := m.CallTool(ctx, "mcp_t_nothing", json.RawMessage(`{}`), CallOptions{}); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("unknown: %v", err)
	}
	var live []string
	for _, ti := range m.Tools() {
		if strings.HasPrefix(ti.Name, "mcp_") {
			live = append(live, ti.Name)
			if ti.Cached || ti.Origin != "mcp:t" {
				t.Errorf("live tool %+v", ti)
			}
		}
	}
	if !slices.Contains(live, "mcp_t_echo") {
		t.Fatalf("live tools %v", live)
	}

	other := e.open(func(o *Options) { o.PollInterval = -1 })
	var cached []string
	for _, ti := range other.Tools() {
		if strings.HasPrefix(ti.Name, "mcp_") && ti.Cached {
			cached = append(cached, ti.Name)
		}
	}
	if !slices.Equal(cached, live) {
		t.Fatalf("cached %v, live %v", cached, live)
	}
	if st := other.MCP().List(); st[0].State != mcpclient.StateIdle {
		t.Fatalf("listing started the server: %+v", st)
	}
}

// TestMCPApprovalAuto: approval = "auto" in the server's table approves without a card, and
// progress and cancellation pass through.
func TestMCPApprovalAuto(t *testing.T) {
	a := &cardApprover{}
	m, _ := mcpManager(t, "auto", false, a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var said string
	start := time.Now()
	_, err := m.CallTool(ctx, "mcp_t_sleep", json.RawMessage(`{"seconds":60}`), CallOptions{Progress: func(_, _ float64, msg string) {
		said = msg
		cancel()
	}})
	if !errors.Is(err, ErrCancelled) || said != "half" || time.Since(start) > 20*time.Second {
		t.Fatalf("sleep: %v, progress %q, after %s", err, said, time.Since(start))
	}
	if len(a.cards) != 0 {
		t.Fatalf("approval auto raised %d cards", len(a.cards))
	}
}

// askerFunc answers questions with a function.
type askerFunc func(context.Context, Question) (Answer, error)

func (f askerFunc) Ask(ctx context.Context, q Question) (Answer, error) { return f(ctx, q) }

// TestMCPElicitation: a server's elicitation during a call of its tool is asked of the call's
// Asker, with the server named as its author; a call without one declines.
func TestMCPElicitation(t *testing.T) {
	m, _ := mcpManager(t, "auto", false, &cardApprover{})
	var q Question
	res, err := m.CallTool(context.Background(), "mcp_t_ask_name", json.RawMessage(`{}`), CallOptions{Asker: askerFunc(func(_ context.Context, got Question) (Answer, error) {
		q = got
		return Answer{Kind: AnswerText, Text: "Ada"}, nil
	})})
	if err != nil || res.Text() != "accept:Ada" {
		t.Fatalf("ask_name: %q, %v", res.Text(), err)
	}
	if q.PluginID != "mcp:t" || q.Name != "mcp_t_ask_name" || q.Text != "Your name?" || !q.AllowText {
		t.Fatalf("question = %+v", q)
	}
	if res, err := m.CallTool(context.Background(), "mcp_t_ask_name", json.RawMessage(`{}`), CallOptions{}); err != nil || res.Text() != "decline:" {
		t.Fatalf("without an Asker: %q, %v", res.Text(), err)
	}
}

// TestMCPServerTreeEnds: a process an MCP server starts in a session of its own, out of the
// server's group, ends with the server: when the Manager closes (the server ends on stdin's
// EOF and its keeper kills what it left) and when the server crashes.
func TestMCPServerTreeEnds(t *testing.T) {
	for _, how := range []string{"close", "crash"} {
		t.Run(how, func(t *testing.T) {
			m, _ := mcpManager(t, "auto", false, nil)
			res, err := m.CallTool(context.Background(), "mcp_t_orphan", json.RawMessage(`{}`), CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(res.Text())
			if err != nil || pid <= 0 {
				t.Fatalf("orphan answered %q", res.Text())
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			if how == "crash" {
				if _, err := m.CallTool(context.Background(), "mcp_t_crash", json.RawMessage(`{}`), CallOptions{}); err == nil {
					t.Fatal("crash answered")
				}
			} else {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				defer cancel()
				if err := m.Close(ctx); err != nil {
					t.Fatal(err)
				}
			}
			eventually(t, 10*time.Second, fmt.Sprintf("the server's detached child %d gone after the server's %s", pid, how),
				func() bool { return processGone(pid) })
		})
	}
}
