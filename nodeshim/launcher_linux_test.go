package nodeshim

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestLauncher: prlimit where it may be used, the exec helper otherwise; the cookie goes only
// to the exec helper and to cwx's own privilege drop inside the sandbox.
func TestLauncher(t *testing.T) {
	const exe, prl, limit = "/proc/self/exe", "/usr/bin/prlimit", uint64(1 << 30)
	cookie := shared.CookieKey + "=" + shared.CookieValue
	plain := []string{"PATH=/usr/bin"}
	boxed := []string{"PATH=/usr/bin", sandboxEnv + "=bwrap"}
	node := []string{"/n/node", "host.mjs"}
	bwrapNode := []string{"/usr/bin/bwrap", "--unshare-pid", "--", "/n/node", "host.mjs"}
	bwrapDrop := []string{"/usr/bin/bwrap", "--", exe, shared.Subcommand, shared.DropPrivilegesMode, "7:7", "/d", "--", "/n/node"}
	for _, tc := range []struct {
		name, prlimit string
		argv, env     []string
		wantArgs      []string
		wantCookie    bool
	}{
		{"no prlimit", "", node, plain, helperArgv(exe, limit, node), true},
		{"prlimit", prl, node, plain, append([]string{prl, "--data=1073741824:1073741824", "--"}, node...), false},
		{"prlimit, sandboxed", prl, bwrapNode, boxed, append([]string{prl, "--data=1073741824:1073741824", "--"}, bwrapNode...), false},
		{"prlimit, cwx's drop inside", prl, bwrapDrop, boxed, append([]string{prl, "--data=1073741824:1073741824", "--"}, bwrapDrop...), true},
	} {
		path, args, env := launcher(exe, tc.prlimit, limit, tc.argv, tc.env)
		if path != args[0] || !slices.Equal(args, tc.wantArgs) {
			t.Errorf("%s: %s %q, want %q", tc.name, path, args, tc.wantArgs)
		}
		if got := slices.Contains(env, cookie); got != tc.wantCookie {
			t.Errorf("%s: cookie in the environment %v, want %v", tc.name, got, tc.wantCookie)
		}
		if len(env) < len(tc.env) || !slices.Equal(env[:len(tc.env)], tc.env) {
			t.Errorf("%s: environment %q lost some of %q", tc.name, env, tc.env)
		}
	}
}

// TestSpawnBornWithTheDataLimit: through prlimit and through the exec helper (prlimit not
// found), the spawned process has RLIMIT_DATA at the limit from its first instruction, leads
// its group, and has no go-plugin cookie; the shim's own limit stays as it was.
func TestSpawnBornWithTheDataLimit(t *testing.T) {
	if _, err := os.Stat(prlimitPath); err != nil {
		if testenv.InCI() {
			t.Fatalf("util-linux's prlimit is missing under CI: %v", err)
		}
		t.Logf("no %s: only the exec helper is tested", prlimitPath)
	}
	before := selfDataLimit(t)
	for name, path := range map[string]string{"prlimit": prlimitPath, "exec helper": filepath.Join(t.TempDir(), "no-prlimit")} {
		t.Run(name, func(t *testing.T) {
			old := prlimitPath
			prlimitPath = path
			t.Cleanup(func() { prlimitPath = old })
			if name == "prlimit" && prlimitLauncher(false) == "" {
				t.Logf("no %s", path)
				return
			}
			const limit = 700 << 20
			p, err := spawn([]string{"/bin/sh", "-c", `grep '^Max data size' /proc/self/limits; env; read -r _ _ _ _ pg _ < /proc/$$/stat; echo "$pg"`},
				[]string{"PATH=/usr/bin:/bin"}, "", limit, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			_ = p.chanW.Close()
			_ = p.chanR.Close()
			out, _ := io.ReadAll(p.output)
			<-p.waited
			sc := bufio.NewScanner(strings.NewReader(string(out)))
			var limits, pgid string
			for sc.Scan() {
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "Max data size"):
					limits = strings.Join(strings.Fields(line)[3:5], " ")
				case strings.HasPrefix(line, shared.CookieKey+"="):
					t.Errorf("the runtime's environment carries %s", shared.CookieKey)
				case strings.TrimSpace(line) != "" && !strings.Contains(line, "="):
					pgid = strings.TrimSpace(line)
				}
			}
			if want := strconv.Itoa(limit) + " " + strconv.Itoa(limit); limits != want {
				t.Errorf("RLIMIT_DATA soft and hard %q, want %q; output:\n%s", limits, want, out)
			}
			if pgid != strconv.Itoa(p.pid) {
				t.Errorf("process group %q, want its own pid %d", pgid, p.pid)
			}
		})
	}
	if after := selfDataLimit(t); after != before {
		t.Errorf("the shim's own RLIMIT_DATA changed: %q, was %q", after, before)
	}
}

func selfDataLimit(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Max data size") {
			return line
		}
	}
	t.Fatal("no Max data size in /proc/self/limits")
	return ""
}
