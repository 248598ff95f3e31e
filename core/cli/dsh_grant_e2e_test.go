package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestDSHWorkspaceDependenciesGrant runs the published DSH plugin
// @deepseek-ai/dsh-tool-workspace-dependencies (built from its public source:
// testdata/dsh-census) under sandbox = "required", its payload folder outside everything the
// sandbox mounts. With a read grant of that folder its tool answers paths into it; without
// the grant the call fails naming the path as not mounted and the grant that would mount it.
func TestDSHWorkspaceDependenciesGrant(t *testing.T) {
	if _, err := os.Stat("/usr/bin/bwrap"); err != nil && !testenv.InCI() {
		t.Skip("bubblewrap is not installed")
	}
	const id = "@deepseek-ai/dsh-tool-workspace-dependencies"
	bin := testenv.BuildCWX(t, "")
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "dsh-census", "tool-workspace-dependencies"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			payload := censusPayload(t, filepath.Join(t.TempDir(), "payloads", "primary"))
			for _, granted := range []bool{true, false} {
				grant := ""
				if granted {
					grant = fmt.Sprintf("read = [%q]\n", payload)
				}
				conf := fmt.Sprintf("sandbox = \"required\"\nmemory_limit_mib = 512\n\n[plugins.%q]\n%s\n[plugins.%q.config]\nsource = %q\n", id, grant, id, payload)
				home := e2eHome(t, rt, conf)
				if got := e2eTrusted(t, bin, home, src); got != id {
					t.Fatalf("installed %q", got)
				}
				e2eMust(t, bin, home, "plugin", "enable", id)
				r := e2eCWX(t, bin, home, "", "tool", "call", "load_workspace_dependencies", "--input", "{}", "--approve", "auto")
				if granted {
					if r.code != 0 || !strings.Contains(r.stdout, filepath.Join(payload, "dependencies", "python", "lib", "python3.12", "site-packages")) {
						t.Fatalf("with the grant: exit %d\n%s%s", r.code, r.stdout, r.stderr)
					}
					continue
				}
				if r.code == 0 || !strings.Contains(r.stderr, "is not mounted in the sandbox of plugin `"+id+"`") ||
					!strings.Contains(r.stderr, `add read = ["<folder>"] under [plugins."`+id+`"]`) {
					t.Fatalf("without the grant: exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
			}
		})
	}
}
