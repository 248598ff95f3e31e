package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestNamesBelongToWhoHadThemFirst: fixture-claims-first activates alone once, and its names
// are persisted; a newcomer installed later that registers `hello_greet` and `Echo_Text`
// loses them in every fresh Manager however the two activations race, and is told whose
// they are. When the first plugin's activation then fails, a call to its tool names it and
// the reason.
func TestNamesBelongToWhoHadThemFirst(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("claims-first")
		first := e.open(nil)
		reconcile(t, first)
		if err := first.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		r, err := e.store.Get("fixture-claims-first")
		if err != nil {
			t.Fatal(err)
		}
		if r.Claims == nil || !slices.Equal(r.Claims.Tools, []string{"echo_text", "hello_greet"}) {
			t.Fatalf("persisted claims = %+v", r.Claims)
		}

		e.install("claims-newcomer")
		for run := range 3 {
			m := e.open(nil)
			reconcile(t, m)
			for _, n := range []string{"hello_greet", "echo_text"} {
				res, err := m.CallTool(context.Background(), n, nil, CallOptions{})
				if err != nil || res.Text() != "first" {
					t.Fatalf("run %d: %s = %q, %v; want the first plugin's", run, n, res.Text(), err)
				}
			}
			if o, _ := m.Owner("fixture-claims-first"); o.State != "active" {
				t.Fatalf("run %d: first plugin %+v", run, o)
			}
			o, _ := m.Owner("fixture-claims-newcomer")
			if o.State != "failed" || !strings.Contains(o.Reason, "belongs to plugin `fixture-claims-first`") {
				t.Fatalf("run %d: newcomer %+v", run, o)
			}
			if err := m.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
		}

		e.writeConfig("[plugins.\"fixture-claims-first\".config]\nfail = true\n")
		m := e.open(nil)
		reconcile(t, m)
		_, err = m.CallTool(context.Background(), "hello_greet", nil, CallOptions{})
		if nl, ok := errors.AsType[*NotLiveError](err); !ok || nl.Plugin != "fixture-claims-first" ||
			!strings.Contains(err.Error(), "it belongs to plugin `fixture-claims-first`, whose activation failed: ") ||
			!strings.Contains(err.Error(), "told to fail by its config") {
			t.Fatalf("call to a failed plugin's tool: %v", err)
		}
	})
}
