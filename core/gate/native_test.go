package gate

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestNativePostures pins how native tools meet the postures: an Eligible call is approved
// without a card in every posture; a Forced one (shell) raises a card on every call under
// ask and auto, never takes a session grant, and is denied under deny or with no
// approver; a Required native is approved like an extension tool's call, under its own
// native: key.
func TestNativePostures(t *testing.T) {
	input := []byte(`{"command":"ls"}`)
	tests := []struct {
		name     string
		posture  Posture
		req      Requirement
		approver bool
		want     []Source // one per call; "" denied
		cards    int
	}{
		{"eligible under ask", Ask, Eligible, true, []Source{ByEligibility, ByEligibility}, 0},
		{"eligible under auto", Auto, Eligible, true, []Source{ByEligibility, ByEligibility}, 0},
		{"eligible under deny", Deny, Eligible, true, []Source{ByEligibility, ByEligibility}, 0},
		{"eligible with no approver", Ask, Eligible, false, []Source{ByEligibility}, 0},
		{"forced under ask", Ask, Forced, true, []Source{ByApprover, ByApprover, ByApprover}, 3},
		{"forced under auto", Auto, Forced, true, []Source{ByApprover, ByApprover}, 2},
		{"forced under deny", Deny, Forced, true, []Source{"", ""}, 0},
		{"forced with no approver", Ask, Forced, false, []Source{""}, 0},
		{"forced under auto with no approver", Auto, Forced, false, []Source{""}, 0},
		{"required under ask", Ask, Required, true, []Source{ByApprover, BySessionGrant}, 1},
		{"required under auto", Auto, Required, true, []Source{ByPosture}, 0},
		{"required under deny", Deny, Required, true, []Source{""}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cards []Card
			var ap Approver
			if tc.approver {
				ap = ApproverFunc(func(_ context.Context, c Card) (Decision, error) {
					cards = append(cards, c)
					return AllowSession, nil
				})
			}
			g := New(tc.posture, ap)
			req := Request{Tool: "shell", Input: input, Requirement: tc.req, Native: true}
			for i, want := range tc.want {
				got, err := g.Check(context.Background(), req, nil)
				if want == "" {
					if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "native tool `shell`") {
						t.Errorf("call %d: %q, %v; want denied naming the native tool", i, got, err)
					}
					continue
				}
				if err != nil || got != want {
					t.Errorf("call %d: %q, %v; want %q", i, got, err, want)
				}
			}
			if len(cards) != tc.cards {
				t.Fatalf("%d cards, want %d", len(cards), tc.cards)
			}
			key, _ := NativeKey("shell", input)
			for _, c := range cards {
				if c.Key != key || !strings.HasPrefix(key, "native:shell:") || c.Forced != (tc.req == Forced) ||
					c.Title != "Native tool `shell` (runs in cwx with your permissions)" {
					t.Errorf("card %+v", c)
				}
			}
			if tc.req == Forced && g.Granted(key) {
				t.Error("a forced call left a session grant")
			}
		})
	}
}

// TestNativeKeyIsItsOwn: a grant for a native call covers neither an extension tool of the
// same name nor an extension's core/call of it.
func TestNativeKeyIsItsOwn(t *testing.T) {
	input := []byte(`{"file_path":"a.txt"}`)
	native, _ := NativeKey("deploy", input)
	ext, _ := Key("hello", closure, "deploy", input)
	call, _ := CallerKey(Caller{PluginID: "hello", ClosureSHA256: closure, Tool: "greet"}, "deploy", input)
	if native == ext || native == call || ext == call {
		t.Fatalf("keys collide: %q %q %q", native, ext, call)
	}
}

// TestEligibleNeedsACanonicalInput: even a call approved without a card must have a
// canonical form.
func TestEligibleNeedsACanonicalInput(t *testing.T) {
	g := New(Ask, nil)
	if _, err := g.Check(context.Background(), Request{Tool: "read_file", Input: []byte(`{"a":1,"a":2}`), Requirement: Eligible, Native: true}, nil); err == nil {
		t.Fatal("duplicate keys accepted")
	}
}
