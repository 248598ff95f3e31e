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

// TestCardDiffGolden: a file write's card shows the change it would make, and the key
// does not depend on it.
func TestCardDiffGolden(t *testing.T) {
	diff := "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
	var b bytes.Buffer
	for _, c := range []struct {
		name string
		req  Request
	}{
		{"native ordinary", Request{Tool: "write_file", Native: true, Requirement: Required}},
		{"native protected", Request{Tool: "write_file", Native: true, Requirement: Forced, Notes: []string{"protected path: .envrc is protected: direnv runs it on entering the folder"}}},
		{"core/call", Request{PluginID: "hello", ClosureSHA256: "c1", Tool: "edit_file", Requirement: Forced,
			Caller: &Caller{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet"}}},
	} {
		r := c.req
		r.Input, r.Diff = []byte(`{"file_path":"a.txt","content":"one\n2\n"}`), diff
		var got Card
		g := New(Ask, ApproverFunc(func(_ context.Context, card Card) (Decision, error) { got = card; return AllowOnce, nil }))
		if _, err := g.Check(context.Background(), r, nil); err != nil {
			t.Fatal(err)
		}
		withDiff := got
		plain := r
		plain.Diff = ""
		if _, err := g.Check(context.Background(), plain, nil); err != nil {
			t.Fatal(err)
		}
		if got.Key != withDiff.Key || got.Diff != "" {
			t.Errorf("%s: the key depends on the diff (%s, %s)", c.name, got.Key, withDiff.Key)
		}
		got = withDiff
		fmt.Fprintf(&b, "== %s (forced %v)\n%s", c.name, got.Forced, got.Text())
	}
	checkGolden(t, "card_diff.golden", b.Bytes())
}
