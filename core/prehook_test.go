package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestPreExecuteHooks drives the fixture's two hooks through every verdict, the fold's order
// and its failures, on an extension tool under the auto posture (a card appears only when a
// hook asks), then a native through CallTool and a core/call.
func TestPreExecuteHooks(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		c := newHookEnv(t, rt)
		for _, tc := range []struct {
			text, echoed, denied string
			cards                int
			notes                []string
		}{
			{text: "hello", echoed: "hello"},
			{text: "next", echoed: "next"},
			{text: "annotate", echoed: "annotate"},
			{text: "ask", echoed: "ask", cards: 1, notes: []string{
				"hook of plugin `fixture-hooks` asks: the fixture wants a person to look",
				"hook of plugin `fixture-hooks` notes: the second hook saw it too"}},
			{text: "deny", denied: "pre-execute hook of plugin `fixture-hooks` denied the call: the fixture denies it"},
			{text: "revise", echoed: "revised by the fixture"},
			{text: "revise-bad", denied: "the input revised by the pre-execute hook of plugin `fixture-hooks` does not fit the tool's schema"},
			{text: "order", echoed: "second"},
			{text: "deny-over-ask", denied: "denied the call: denied second"},
			{text: "throw", denied: "pre-execute hook of plugin `fixture-hooks` failed: the listener threw: RangeError: the fixture hook threw"},
			{text: "malformed", denied: "failed: the listener returned an unsupported answer 42"},
			{text: "two-keys", denied: `unsupported answer {"deny":"x","ask":"y"}`},
			{text: "allow", echoed: "allow"},
			{text: "allow", echoed: "allow"},
			{text: "slow", denied: "pre-execute hook of plugin `fixture-hooks` failed: no answer within the batch deadline of 500ms"},
			{text: "exec", denied: `{"keys":["arguments","callId","name","signal","workspace"],"frozen":true,"argsFrozen":true,"name":"echo_text","callId":"tool-`},
		} {
			before := len(c.a.cards)
			res, err := c.m.CallTool(context.Background(), "echo_text", input(`{"text":"`+tc.text+`"}`), CallOptions{Workspace: c.ws})
			if tc.denied != "" {
				if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.denied) {
					t.Errorf("%s: %v, want denied %q", tc.text, err, tc.denied)
				}
				continue
			}
			if err != nil || !strings.Contains(string(res.Structured), `"echoed":"`+tc.echoed+`"`) {
				t.Errorf("%s: %s, %v; want echoed %q", tc.text, res.Structured, err, tc.echoed)
				continue
			}
			cards := c.a.cards[before:]
			if len(cards) != tc.cards {
				t.Errorf("%s: %d cards, want %d", tc.text, len(cards), tc.cards)
				continue
			}
			if tc.cards > 0 {
				if got := strings.Join(cards[0].Notes, "|"); got != strings.Join(tc.notes, "|") || !cards[0].Forced || !strings.Contains(cards[0].Text(), tc.notes[0]) {
					t.Errorf("%s: card notes %q forced %v, want %q", tc.text, cards[0].Notes, cards[0].Forced, tc.notes)
				}
			}
		}
		// the caller giving up while a hook is asked is a cancellation, not a hook's deny
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := c.m.CallTool(ctx, "echo_text", input(`{"text":"slow"}`), CallOptions{Workspace: c.ws})
		cancel()
		if !errors.Is(err, ErrCancelled) || errors.Is(err, ErrDenied) {
			t.Errorf("cancelled during a slow hook: %v", err)
		}
		if n := strings.Count(strings.Join(diagnostics(t, c.e, c.m, "fixture-hooks"), "\n"), "answered allow"); n != 1 {
			t.Errorf("allow logged %d times, want once", n)
		}
		if _, err := c.m.CallTool(context.Background(), "list_dir", input(`{"path":"."}`), CallOptions{Workspace: c.ws}); !errors.Is(err, ErrDenied) ||
			!strings.Contains(err.Error(), "plugin `fixture-hooks` denied the call: no listing") {
			t.Errorf("native list_dir: %v", err)
		}
		if _, err := c.m.CallTool(context.Background(), "read_file", input(`{"file_path":"a.txt"}`), CallOptions{Workspace: c.ws}); err != nil {
			t.Errorf("native read_file, every hook abstaining: %v", err)
		}
		var got callOutcome
		res, err := c.m.CallTool(context.Background(), "ask_core", input(`{"name":"list_dir","input":{"path":"."}}`), CallOptions{Workspace: c.ws})
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(res.Structured, &got); err != nil {
			t.Fatalf("ask_core result %s: %v", res.Structured, err)
		}
		if got.OK || got.Code != "denied" || !strings.Contains(got.Message, "plugin `fixture-hooks` denied the call") ||
			len(res.CoreCalls) != 1 || res.CoreCalls[0].Decision != "denied" {
			t.Errorf("core/call list_dir: %+v, receipts %+v", got, res.CoreCalls)
		}
	})
}

// TestPreExecuteHookCrashDenies: the hook's host dies while it evaluates; the call is denied
// naming the plugin, the tier restarts and the hooks are live again.
func TestPreExecuteHookCrashDenies(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		c := newHookEnv(t, rt)
		gen := c.m.Host(protocol.TierPlugin).Generation
		_, err := c.m.CallTool(context.Background(), "echo_text", input(`{"text":"crash"}`), CallOptions{Workspace: c.ws})
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "pre-execute hook of plugin `fixture-hooks` failed") {
			t.Fatalf("crash mid-evaluation: %v", err)
		}
		eventually(t, 30*time.Second, "tier restarted with both hooks", func() bool {
			return c.m.Host(protocol.TierPlugin).Generation > gen && len(c.m.reg.Hooks()) == 2 && hasTool(c.m, "echo_text")
		})
		if _, err := c.m.CallTool(context.Background(), "echo_text", input(`{"text":"deny"}`), CallOptions{Workspace: c.ws}); !errors.Is(err, ErrDenied) {
			t.Fatalf("after the restart: %v", err)
		}
	})
}

// hookEnv is a Manager under the auto posture with the hooks, tool and core-call fixtures.
type hookEnv struct {
	*coreEnv
	e *env
}

func newHookEnv(t *testing.T, rt testenv.Runtime) hookEnv {
	t.Helper()
	e := newEnv(t, rt)
	e.install("hooks", "tool", "core-call")
	a := &cardApprover{}
	m := e.open(func(o *Options) { o.Approval = "auto"; o.Approver = a })
	m.pre.deadline = 500 * time.Millisecond
	reconcile(t, m)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return hookEnv{coreEnv: &coreEnv{m: m, ws: ws, a: a}, e: e}
}

// BenchmarkCallToolHooks measures one echo_text call with no hook and with the fixture's two
// hooks (both abstaining), on each runtime: the cost of one hook/evaluate batch.
func BenchmarkCallToolHooks(b *testing.B) {
	for _, want := range testenv.Runtimes() {
		for _, fixtures := range [][]string{{"tool"}, {"tool", "hooks"}} {
			b.Run(want.Name+"/hooks-"+strconv.Itoa(2*(len(fixtures)-1)), func(b *testing.B) {
				e := newEnv(b, want.Get(b))
				e.install(fixtures...)
				m := e.open(nil)
				reconcile(b, m)
				in := input(`{"text":"hello"}`)
				b.ResetTimer()
				for range b.N {
					if _, err := m.CallTool(context.Background(), "echo_text", in, CallOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
