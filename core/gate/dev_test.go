package gate

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestDevAlwaysAsked pins a dev plugin's tool (Request.Dev): under ask and auto every call
// is asked, whatever the person answered before and whatever grant the session holds for the
// same build's tool; deny refuses; with no approver it fails closed. Its card says dev,
// offers no session grant, and its refusal names the dev session.
func TestDevAlwaysAsked(t *testing.T) {
	dev := func() Request { r := req(`{"name":"Ada"}`); r.Dev = true; return r }
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		posture Posture
		answers []Decision // the approver's answers to three calls in a row
		grant   bool       // the session already holds the tool key of the same build
		asked   int
		err     error
	}{
		{"ask, the person answers allow this tool for the session", Ask, []Decision{AllowToolForSession, AllowSession, AllowOnce}, false, 3, nil},
		{"auto (--approve-extensions) still asks", Auto, []Decision{AllowOnce, AllowOnce, AllowOnce}, false, 3, nil},
		{"a tool grant of the same build does not cover it", Auto, []Decision{AllowOnce, AllowOnce, AllowOnce}, true, 3, nil},
		{"deny refuses without asking", Deny, nil, false, 0, ErrDenied},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{answers: c.answers}
			g := New(c.posture, rec)
			if c.grant {
				g.grant(ToolKey("hello", closure, "greet"))
			}
			for range 3 {
				src, err := g.Check(ctx, dev(), nil)
				if c.err != nil {
					if !errors.Is(err, c.err) {
						t.Fatalf("err %v, want %v", err, c.err)
					}
					continue
				}
				if err != nil || src != ByApprover {
					t.Fatalf("%s %v, want approved by the approver", src, err)
				}
			}
			if len(rec.cards) != c.asked {
				t.Fatalf("asked %d times, want %d", len(rec.cards), c.asked)
			}
			for _, card := range rec.cards {
				if !card.Dev || !card.Forced || card.ToolKey != "" || card.ToolChoice != "" || card.Requirement != Required ||
					!strings.Contains(card.Title, "(dev: runs from a `cwx plugin dev` session, reviewed by no one; runs JavaScript with your permissions)") {
					t.Fatalf("card %+v", card)
				}
			}
		})
	}
	if _, err := New(Auto, nil).Check(ctx, dev(), nil); !errors.Is(err, ErrDenied) || !errors.Is(err, ErrNoApprover) {
		t.Fatalf("no approver: %v", err)
	}
	// the refusal names the dev session; a hook's ask on a dev tool keeps the forced wording
	card := NewCard(dev(), "k", []byte(`{}`))
	if got := card.Refusal(); got != "extension tool `greet` from plugin `hello` comes from a `cwx plugin dev` session and must be asked of a person (a dev plugin's tool is always asked; no posture, flag or session grant approves it)" {
		t.Errorf("refusal %q", got)
	}
	hooked := dev()
	hooked.Requirement = Forced
	if got := NewCard(hooked, "k", []byte(`{}`)).Refusal(); !strings.Contains(got, "a pre-execute hook asked for it") {
		t.Errorf("hook's ask on a dev tool: %q", got)
	}
	// a plugin that is not dev is unchanged: auto approves it without a card
	if src, err := New(Auto, nil).Check(ctx, req(`{}`), nil); err != nil || src != ByPosture {
		t.Errorf("not dev under auto: %s %v", src, err)
	}
}
