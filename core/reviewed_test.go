package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestReplayRunsOnlyReviewedBytes: a tool rewrites its plugin's own helper.mjs (a module the
// entry imports, not an entry) during a call, then the host is killed. The replay after the
// restart fails that plugin closed ("content changed, review again") without importing the
// rewritten module, while its neighbour comes back.
func TestReplayRunsOnlyReviewedBytes(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		// Unsandboxed: the sandbox mounts the staged copies read-only, so the rewrite this
		// test needs cannot happen there; the replay's verification is what stops it here.
		e.writeConfig("sandbox = \"off\"\n")
		e.install("rewrites-helper", "tool")
		m := e.open(nil)
		reconcile(t, m)
		marker := filepath.Join(t.TempDir(), "rewritten-code-ran")
		res, err := m.CallTool(context.Background(), "helper_rewrite", input(fmt.Sprintf(`{"marker":%q}`, marker)), CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Text(); got != `{"origin":"reviewed"}` {
			t.Fatalf("first call ran %s, want the reviewed helper", got)
		}
		before := ownerOf(t, m, "fixture-tool").Ref
		if err := m.KillRuntime(protocol.TierPlugin); err != nil {
			t.Fatal(err)
		}
		eventually(t, 15*time.Second, "the neighbour live again after the restart", func() bool {
			o, ok := m.reg.Owner("fixture-tool")
			return ok && o.State == registry.Active && o.Ref.Generation != before.Generation
		})
		eventually(t, 5*time.Second, "the rewriting plugin failed", func() bool {
			return ownerOf(t, m, "fixture-rewrites-helper").State == registry.Failed
		})
		if hasTool(m, "helper_rewrite") {
			t.Fatal("the plugin with rewritten bytes is live again")
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the rewritten helper ran after the restart (marker: %v)", err)
		}
		if d := strings.Join(diagnostics(t, e, m, "fixture-rewrites-helper"), "\n"); !strings.Contains(d, "content changed, review again") {
			t.Fatalf("diagnostics: %s", d)
		}
	})
}
