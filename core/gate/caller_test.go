package gate

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCallerKeysAreOriginScoped: a session grant for an extension's core/call of a tool
// never covers the same call made directly, and the reverse.
func TestCallerKeysAreOriginScoped(t *testing.T) {
	caller := &Caller{PluginID: "hello", ClosureSHA256: closure, Tool: "greet"}
	input := []byte(`{"file_path":"a.txt"}`)
	direct := Request{PluginID: "hello", ClosureSHA256: closure, Tool: "read_file", Input: input, Requirement: Required}
	nested := direct
	nested.Caller = caller

	key, err := CallerKey(*caller, "read_file", input)
	if err != nil || !strings.HasPrefix(key, "extcall:ext:hello@"+closure+":read_file:") {
		t.Fatalf("CallerKey = %q, %v", key, err)
	}
	plain, _ := Key("hello", closure, "read_file", input)
	if key == plain || key != "extcall:"+plain {
		t.Fatalf("caller key %q is not the origin-scoped form of %q", key, plain)
	}

	tests := []struct {
		name         string
		grant, check Request
	}{
		{"a direct grant does not cover the extension's call", direct, nested},
		{"an extension's grant does not cover the direct call", nested, direct},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := 0
			var cards []Card
			ap := ApproverFunc(func(_ context.Context, c Card) (Decision, error) {
				asked++
				cards = append(cards, c)
				if asked == 1 {
					return AllowSession, nil
				}
				return DenyDecision, nil
			})
			g := New(Ask, ap)
			if _, err := g.Check(context.Background(), tt.grant, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := g.Check(context.Background(), tt.check, nil); !errors.Is(err, ErrDenied) {
				t.Fatalf("second call: %v; want it asked again (and denied)", err)
			}
			if asked != 2 || cards[0].Key == cards[1].Key {
				t.Fatalf("asked %d times, keys %q %q", asked, cards[0].Key, cards[1].Key)
			}
		})
	}
}

func TestCallerCardIsComposedByTheCore(t *testing.T) {
	var card Card
	ap := ApproverFunc(func(_ context.Context, c Card) (Decision, error) { card = c; return AllowOnce, nil })
	req := Request{PluginID: "hello", ClosureSHA256: closure, Tool: "shell", Input: []byte(`{"command":"ls"}`),
		Requirement: Forced, Caller: &Caller{PluginID: "hello", ClosureSHA256: closure, Tool: "greet"}}
	if _, err := New(Auto, ap).Check(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	want := "Requested by `extension:hello` from inside its tool `greet` (core/call): core tool `shell`"
	if card.Title != want || !card.Forced || !strings.HasPrefix(card.Key, "extcall:ext:hello@") {
		t.Fatalf("card %+v; want title %q, forced, an extcall key", card, want)
	}
	_, err := New(Deny, ap).Check(context.Background(), req, nil)
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "requested by plugin `hello` from its tool `greet`") {
		t.Fatalf("deny posture: %v", err)
	}
}

// TestAgentServiceCard: a core/call of an agent service is named so on its card; its key is
// the same origin-scoped key as a core tool's.
func TestAgentServiceCard(t *testing.T) {
	var card Card
	ap := ApproverFunc(func(_ context.Context, c Card) (Decision, error) { card = c; return AllowOnce, nil })
	req := Request{PluginID: "hello", ClosureSHA256: closure, Tool: "subagents_start", Input: []byte(`{"prompt":"x"}`),
		Requirement: Required, Caller: &Caller{PluginID: "hello", ClosureSHA256: closure, Tool: "greet"}, AgentService: true}
	if _, err := New(Ask, ap).Check(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	want := "Requested by `extension:hello` from inside its tool `greet` (core/call): the agent's service `subagents_start`"
	if card.Title != want || !strings.Contains(card.ToolChoice, "the agent's service `subagents_start`") || !strings.HasPrefix(card.Key, "extcall:ext:hello@") {
		t.Fatalf("card %+v; want title %q and an extcall key", card, want)
	}
}
