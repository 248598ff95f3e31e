package core

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestCoreCallWritesAlwaysAsk: a plugin's write through core/call is asked on every call
// under ask and auto alike (a session grant is never taken), the card shows the diff and
// names a protected path. (Under deny the calling extension tool itself never runs.)
func TestCoreCallWritesAlwaysAsk(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		for _, posture := range []string{"ask", "auto"} {
			t.Run(posture, func(t *testing.T) {
				c := newCoreEnv(t, rt, posture, nil)
				c.a.answer = func(context.Context, gate.Card) (gate.Decision, error) { return gate.AllowSession, nil }
				calls := []string{
					`{"name":"write_file","input":{"file_path":"a.txt","content":"written\n"}}`,
					`{"name":"edit_file","input":{"file_path":"a.txt","old_string":"written","new_string":"edited"}}`,
					`{"name":"write_file","input":{"file_path":".envrc","content":"export X=1\n"}}`,
				}
				for i, call := range calls {
					var got callOutcome
					c.ask(t, call, &got)
					if !got.OK || got.IsError {
						t.Fatalf("call %d = %+v", i, got)
					}
				}
				b, _ := os.ReadFile(filepath.Join(c.ws, "a.txt"))
				_, envrc := os.Stat(filepath.Join(c.ws, ".envrc"))
				cards := c.a.coreCards()
				if string(b) != "edited\n" || envrc != nil {
					t.Fatalf("a.txt %q, .envrc %v", b, envrc)
				}
				if len(cards) != len(calls) {
					t.Fatalf("%d core/call cards; want %d (one per call)", len(cards), len(calls))
				}
				for i, card := range cards {
					if !card.Forced || card.ToolKey != "" || !strings.Contains(card.Diff, "+++ b/") {
						t.Fatalf("card %d = %+v", i, card)
					}
				}
				if !strings.Contains(cards[2].Text(), "protected path: .envrc") {
					t.Fatalf("the .envrc card does not name the protected path:\n%s", cards[2].Text())
				}
			})
		}
	})
}
