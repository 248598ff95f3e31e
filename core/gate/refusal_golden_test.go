package gate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// originCases are one gated call of each origin, as the core builds them.
var originCases = []struct {
	name string
	req  Request
}{
	{"native", Request{Tool: "shell", Native: true}},
	{"extension", Request{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet"}},
	{"builtin module", Request{PluginID: "host:script-tools", ClosureSHA256: "c2", Tool: "word_count", Builtin: true}},
	{"core/call", Request{PluginID: "hello", ClosureSHA256: "c1", Tool: "shell", Native: true,
		Caller: &Caller{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet"}}},
}

// TestRefusalsNameTheOrigin: every refusal the gate and the terminal prompter give names the
// call by its origin, and a call asked every time gets no advice to change the posture
// (which would not approve it). The golden holds every origin, required and forced.
func TestRefusalsNameTheOrigin(t *testing.T) {
	var b bytes.Buffer
	denyAll := ApproverFunc(func(context.Context, Card) (Decision, error) { return DenyDecision, nil })
	for _, c := range originCases {
		for _, req := range []Requirement{Required, Forced} {
			r := c.req
			r.Input = []byte(`{"command":"ls"}`)
			r.Requirement = req
			kind := map[Requirement]string{Required: "required", Forced: "forced"}[req]
			fmt.Fprintf(&b, "== %s, %s\n", c.name, kind)
			card := NewCard(r, "key", []byte(`{"command":"ls"}`))
			fmt.Fprintf(&b, "origin: %s\nsubject: %s\ntitle: %s\ntool choice: %s\n", card.Origin, card.Subject, card.Title, card.ToolChoice)
			for _, g := range []struct {
				what     string
				posture  Posture
				approver Approver
			}{
				{"deny posture", Deny, nil},
				{"no approver", Ask, nil},
				{"no terminal", Ask, &TerminalPrompter{}},
				{"denied", Ask, denyAll},
			} {
				_, err := New(g.posture, g.approver).Check(context.Background(), r, nil)
				fmt.Fprintf(&b, "%s: %v\n", g.what, err)
			}
		}
	}
	checkGolden(t, "refusals.golden", b.Bytes())
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "gate", name)
	if os.Getenv("CWX_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record it with CWX_UPDATE_GOLDEN=1)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
