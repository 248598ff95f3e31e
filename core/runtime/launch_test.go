package runtime

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestLaunchPlan(t *testing.T) {
	environ := []string{
		"HOME=/home/u", "PATH=/usr/bin", "NODE_OPTIONS=--require /evil.js", "NODE_PATH=/x",
		"CWX_PLUGIN_COOKIE=secret", "PLUGIN_UNIX_SOCKET_DIR=/s", "AWS_SECRET_ACCESS_KEY=k",
		"LC_ALL=C.UTF-8", "CWX_TEST_RUN_MARKER=abc", "BUN_OPTIONS=--preload x", "LANG=C", "HOME=/home/v", "BROKEN",
	}
	tests := []struct {
		name string
		rt   Runtime
		mem  uint64
		argv []string
		env  []string
		lim  uint64
	}{
		{
			name: "node",
			rt:   Runtime{Kind: KindNode, Path: "/n/node", NodeFlags: []string{"--no-experimental-sqlite"}},
			argv: []string{"/n/node", "--max-old-space-size=256", "--disable-proto=throw", "--no-addons", "--zero-fill-buffers",
				"--no-experimental-sqlite", "/b/host.mjs", "--tier=plugin"},
			env: []string{"HOME=/home/v", "PATH=/usr/bin", "LC_ALL=C.UTF-8", "CWX_TEST_RUN_MARKER=abc", "LANG=C",
				"EXTRA=1", "NODE_OPTIONS=", "CWX_HOST_PROCESS_GROUP=1"},
			lim: 1 << 30,
		},
		{
			name: "bun",
			rt:   Runtime{Kind: KindBun, Path: "/b/bun"},
			mem:  512 << 20,
			argv: []string{"/b/bun", "--no-install", "--no-env-file", "--config=/dev/null", "--no-addons",
				"/b/host.mjs", "--tier=plugin"},
			env: []string{"HOME=/home/v", "PATH=/usr/bin", "LC_ALL=C.UTF-8", "CWX_TEST_RUN_MARKER=abc", "LANG=C",
				"EXTRA=1", "NODE_OPTIONS=", "CWX_HOST_PROCESS_GROUP=1", "BUN_OPTIONS=", "BUN_BE_BUN=0", "BUN_JSC_useShadowRealm=0"},
			lim: 512 << 20,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// extraEnv cannot override the fixed runtime variables.
			p := tc.rt.launchPlan(environ, "/b/host.mjs", "plugin", tc.mem, []string{"EXTRA=1", "NODE_OPTIONS=--inspect"})
			if !slices.Equal(p.Argv, tc.argv) {
				t.Errorf("Argv =\n%q\nwant\n%q", p.Argv, tc.argv)
			}
			if !slices.Equal(p.Env, tc.env) {
				t.Errorf("Env =\n%q\nwant\n%q", p.Env, tc.env)
			}
			if p.MemoryLimitBytes != tc.lim || p.Dir != "" {
				t.Errorf("MemoryLimitBytes = %d, Dir = %q", p.MemoryLimitBytes, p.Dir)
			}
		})
	}
}

// TestLaunchPlanRunsOnRealRuntimes starts each pinned runtime with its plan and a script
// that reports its argv and environment: every flag must be accepted and the tier last.
func TestLaunchPlanRunsOnRealRuntimes(t *testing.T) {
	script := filepath.Join(t.TempDir(), "host.mjs")
	src := `process.stdout.write(JSON.stringify({argv: process.argv.slice(2), env: process.env}))`
	if err := os.WriteFile(script, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			r := want.Get(t)
			o := Options{Kind: Kind(r.Name), NodePath: r.Path}
			if r.Name == "bun" {
				o = Options{Kind: KindBun, BunPath: r.Path}
			}
			res, err := Resolve(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			p := res.Chosen.LaunchPlan(script, "builtin", 0, nil)
			cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
			cmd.Env, cmd.Dir = p.Env, t.TempDir()
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%q: %v: %s", p.Argv, err, out)
			}
			var got struct {
				Argv []string          `json:"argv"`
				Env  map[string]string `json:"env"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("output %q: %v", out, err)
			}
			if got.Argv[len(got.Argv)-1] != "--tier=builtin" {
				t.Errorf("argv = %q, want --tier=builtin last", got.Argv)
			}
			if got.Env["CWX_HOST_PROCESS_GROUP"] != "1" || got.Env[testenv.MarkerEnv] != testenv.Marker() {
				t.Errorf("env = %v", got.Env)
			}
			for k := range got.Env {
				if strings.HasPrefix(k, "PLUGIN_") || k == "CWX_PLUGIN_COOKIE" {
					t.Errorf("env leaked %s", k)
				}
			}
		})
	}
}

// TestHelloVersionMatchesWhatTheRuntimeReports checks HelloVersion against what the real
// runtime reports from inside, the way the host fills host/hello's runtime.version.
func TestHelloVersionMatchesWhatTheRuntimeReports(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			r := want.Get(t)
			o := Options{Kind: KindNode, NodePath: r.Path}
			if r.Name == "bun" {
				o = Options{Kind: KindBun, BunPath: r.Path}
			}
			res, err := Resolve(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(r.Path, "-e", `process.stdout.write(process.versions.bun ?? process.versions.node)`)
			cmd.Env = []string{}
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Chosen.HelloVersion(); got != string(out) {
				t.Errorf("HelloVersion() = %q, the runtime reports %q", got, out)
			}
		})
	}
}
