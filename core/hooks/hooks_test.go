package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
)

func ans(id string, v protocol.HookVerdict) Answer {
	return Answer{Hook: Hook{PluginID: id}, Verdict: v}
}

var (
	abstain = protocol.HookVerdict{Kind: protocol.HookAbstain}
	deny    = func(r string) protocol.HookVerdict { return protocol.HookVerdict{Kind: protocol.HookDeny, Reason: r} }
	askV    = func(r string) protocol.HookVerdict { return protocol.HookVerdict{Kind: protocol.HookAsk, Reason: r} }
	note    = func(t string) protocol.HookVerdict { return protocol.HookVerdict{Kind: protocol.HookAnnotate, Text: t} }
	revise  = func(in string) protocol.HookVerdict {
		return protocol.HookVerdict{Kind: protocol.HookRevise, Input: json.RawMessage(in)}
	}
)

func TestFold(t *testing.T) {
	for _, c := range []struct {
		name     string
		builtin  []Answer
		plugin   []Answer
		decision Decision
		reason   string // substring
		input    string
		by       string
		notes    []string
	}{
		{name: "none", decision: Proceed},
		{name: "abstain", plugin: []Answer{ans("a", abstain)}, decision: Proceed},
		{name: "deny", plugin: []Answer{ans("a", abstain), ans("b", deny("no"))}, decision: Deny, reason: "plugin `b` denied the call: no"},
		{name: "first deny named", plugin: []Answer{ans("a", deny("one")), ans("b", deny("two"))}, decision: Deny, reason: "`a` denied the call: one"},
		{name: "deny beats ask", plugin: []Answer{ans("a", askV("sure?")), ans("b", deny("no"))}, decision: Deny, reason: "`b`",
			notes: []string{"hook of plugin `a` asks: sure?"}},
		{name: "ask", plugin: []Answer{ans("a", askV("sure?")), ans("b", abstain)}, decision: Ask, notes: []string{"hook of plugin `a` asks: sure?"}},
		{name: "annotate", plugin: []Answer{ans("a", note("n1")), ans("b", note("n2"))}, decision: Proceed,
			notes: []string{"hook of plugin `a` notes: n1", "hook of plugin `b` notes: n2"}},
		{name: "last revise wins", plugin: []Answer{ans("a", revise(`{"x":1}`)), ans("b", revise(`{"x":2}`)), ans("c", abstain)},
			decision: Proceed, input: `{"x":2}`, by: "b"},
		{name: "builtin first", builtin: []Answer{ans("host:cmd", revise(`{"x":0}`))}, plugin: []Answer{ans("a", revise(`{"x":1}`))},
			decision: Proceed, input: `{"x":1}`, by: "a"},
		{name: "builtin deny named first", builtin: []Answer{ans("host:cmd", deny("policy"))}, plugin: []Answer{ans("a", deny("mine"))},
			decision: Deny, reason: "`host:cmd` denied the call: policy"},
		{name: "error denies", plugin: []Answer{{Hook: Hook{PluginID: "a"}, Err: errors.New("host exited")}}, decision: Deny,
			reason: "pre-execute hook of plugin `a` failed: host exited"},
		{name: "unknown kind", plugin: []Answer{ans("a", protocol.HookVerdict{Kind: "allow"})}, decision: Deny, reason: `unknown verdict "allow"`},
		{name: "empty reason", plugin: []Answer{ans("a", deny(" "))}, decision: Deny, reason: "deny needs a non-empty text"},
		{name: "empty note", plugin: []Answer{ans("a", note(""))}, decision: Deny, reason: "annotate needs a non-empty text"},
		{name: "two-line note", plugin: []Answer{ans("a", note("a\ninput: {}"))}, decision: Deny, reason: "must be one line"},
		{name: "builtin reason keeps its lines", builtin: []Answer{ans("host:cmd", deny("Blocked:\n- rm -rf /\nuse trash"))},
			decision: Deny, reason: "`host:cmd` denied the call: Blocked:\n- rm -rf /\nuse trash"},
		{name: "builtin bidi still refused", builtin: []Answer{ans("host:cmd", deny("a\n\u202eb"))}, decision: Deny, reason: "U+202E"},
		{name: "bidi note", plugin: []Answer{ans("a", note("a\u202eb"))}, decision: Deny, reason: "U+202E"},
		{name: "long reason", plugin: []Answer{ans("a", askV(strings.Repeat("x", MaxText+1)))}, decision: Deny, reason: "the limit is 2048"},
		{name: "revise array", plugin: []Answer{ans("a", revise(`[1]`))}, decision: Deny, reason: "revise needs the input as a JSON object"},
		{name: "revise missing", plugin: []Answer{ans("a", protocol.HookVerdict{Kind: protocol.HookRevise})}, decision: Deny, reason: "JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := Fold(c.builtin, c.plugin)
			if out.Decision != c.decision || !strings.Contains(out.Reason, c.reason) {
				t.Fatalf("decision %d %q, want %d %q", out.Decision, out.Reason, c.decision, c.reason)
			}
			if string(out.Input) != c.input || out.RevisedBy != c.by {
				t.Fatalf("input %s by %q, want %s by %q", out.Input, out.RevisedBy, c.input, c.by)
			}
			var notes []string
			for _, n := range out.Notes {
				notes = append(notes, n.String())
			}
			if strings.Join(notes, "|") != strings.Join(c.notes, "|") {
				t.Fatalf("notes %q, want %q", notes, c.notes)
			}
		})
	}
}

// fakeEval answers by plugin id; "slow" waits for its context, "err" fails.
type fakeEval map[string]protocol.HookVerdict

func (f fakeEval) Evaluate(ctx context.Context, h Hook, c Call, d time.Duration) (protocol.HookVerdict, error) {
	switch h.PluginID {
	case "slow":
		<-ctx.Done()
		return protocol.HookVerdict{}, context.Cause(ctx)
	case "err":
		return protocol.HookVerdict{}, errors.New("boom")
	}
	return f[h.PluginID], nil
}

func TestRunDeadlineDenies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := fakeEval{"a": note("fine")}
		start := time.Now()
		out := Run(context.Background(), nil, []Hook{{PluginID: "a"}, {PluginID: "slow"}}, Call{Name: "shell"}, ev, 0)
		if out.Decision != Deny || !strings.Contains(out.Reason, "plugin `slow` failed: no answer within the batch deadline of 5s") {
			t.Fatalf("%+v", out)
		}
		if d := time.Since(start); d != BatchDeadline {
			t.Fatalf("returned after %s, want %s", d, BatchDeadline)
		}
		if len(out.Notes) != 1 || out.Notes[0].PluginID != "a" {
			t.Fatalf("notes %+v", out.Notes)
		}
	})
}

func TestRunAnswersInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := fakeEval{"a": revise(`{"v":"a"}`), "b": revise(`{"v":"b"}`)}
		start := time.Now()
		out := Run(context.Background(), nil, []Hook{{PluginID: "a"}, {PluginID: "b"}}, Call{}, ev, 0)
		if out.Decision != Proceed || string(out.Input) != `{"v":"b"}` || time.Since(start) != 0 {
			t.Fatalf("%+v after %s", out, time.Since(start))
		}
		out = Run(context.Background(), nil, []Hook{{PluginID: "err"}, {PluginID: "a"}}, Call{}, ev, 0)
		if out.Decision != Deny || !strings.Contains(out.Reason, "`err` failed: boom") {
			t.Fatalf("%+v", out)
		}
	})
}

// TestBuiltinAskKeepsLines: a command hook's ask reason reaches the card's note with its
// lines; a plugin's two-line ask is a deny.
func TestBuiltinAskKeepsLines(t *testing.T) {
	v := protocol.HookVerdict{Kind: protocol.HookAsk, Reason: "Writes outside the repo:\n  /etc/hosts"}
	out := Fold([]Answer{{Hook: Hook{PluginID: "host:hooks"}, Verdict: v}}, nil)
	if out.Decision != Ask || len(out.Notes) != 1 || out.Notes[0].String() != "hook of plugin `host:hooks` asks: Writes outside the repo:\n  /etc/hosts" {
		t.Fatalf("%+v", out)
	}
	if out := Fold(nil, []Answer{{Hook: Hook{PluginID: "a"}, Verdict: v}}); out.Decision != Deny || !strings.Contains(out.Reason, "must be one line") {
		t.Fatalf("plugin: %+v", out)
	}
}
