package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

type wantCandidate struct{ path, reason string } // path relative to the test's root

func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, root string) Options
		chosen   string // relative path, "" when resolution must fail
		rejected []wantCandidate
		fallback string
	}{
		{
			name: "node: old node rejected, next on PATH chosen",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/a", "node", versionScript("v20.20.2"))
				fakeBin(t, root+"/b", "node", versionScript("v22.19.0"))
				return Options{Kind: KindNode, PathEnv: root + "/a:" + root + "/empty:" + root + "/b"}
			},
			chosen:   "b/node",
			rejected: []wantCandidate{{"a/node", "v20.20.2 is below the 22.19 floor"}},
		},
		{
			name: "default kind is node",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/a", "bun", versionScript("1.4.0"))
				fakeBin(t, root+"/a", "node", versionScript("v24.1.0"))
				return Options{PathEnv: root + "/a"}
			},
			chosen: "a/node",
		},
		{
			name: "a configured bun path does not change the default",
			setup: func(t *testing.T, root string) Options {
				p := fakeBin(t, root+"/cfg", "bun", versionScript("1.4.1"))
				fakeBin(t, root+"/a", "node", versionScript("v24.1.0"))
				return Options{BunPath: p, PathEnv: root + "/a"}
			},
			chosen: "a/node",
		},
		{
			name: "relative, node_modules and working-directory entries are skipped unrun",
			setup: func(t *testing.T, root string) Options {
				t.Chdir(root)
				fakeBin(t, root+"/rel", "node", "echo ran >> "+root+"/ran; "+versionScript("v24.0.0"))
				fakeBin(t, root+"/proj/node_modules/.bin", "node", "echo ran >> "+root+"/ran; "+versionScript("v24.0.0"))
				fakeBin(t, root+"/work/bin", "node", "echo ran >> "+root+"/ran; "+versionScript("v24.0.0"))
				fakeBin(t, root+"/ok", "node", versionScript("v22.20.0"))
				t.Cleanup(func() {
					if _, err := os.Stat(root + "/ran"); err == nil {
						t.Error("a skipped candidate was run")
					}
				})
				return Options{PathEnv: "rel:" + root + "/proj/node_modules/.bin:" + root + "/work/bin:" + root + "/ok",
					WorkDir: root + "/work", HomeDir: "/nonexistent-home"}
			},
			chosen: "ok/node",
			rejected: []wantCandidate{
				{"!rel/node", `skipped without running it: PATH entry "rel" is relative`},
				{"proj/node_modules/.bin/node", "skipped without running it: $ROOT/proj/node_modules/.bin/node is inside a node_modules folder"},
				{"work/bin/node", "skipped without running it: $ROOT/work/bin/node is inside the working directory $ROOT/work"},
			},
		},
		{
			name: "working-directory rule is off when the working directory holds the home",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/home/u/bin", "node", versionScript("v24.0.0"))
				return Options{PathEnv: root + "/home/u/bin", WorkDir: root + "/home", HomeDir: root + "/home/u"}
			},
			chosen: "home/u/bin/node",
		},
		{
			name: "a symlink into node_modules is skipped",
			setup: func(t *testing.T, root string) Options {
				target := fakeBin(t, root+"/pkg/node_modules/x", "node", versionScript("v24.0.0"))
				if err := os.MkdirAll(root+"/link", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, root+"/link/node"); err != nil {
					t.Fatal(err)
				}
				return Options{PathEnv: root + "/link"}
			},
			rejected: []wantCandidate{{"link/node", "skipped without running it: $ROOT/pkg/node_modules/x/node is inside a node_modules folder"}},
		},
		{
			name: "the same file twice is tried once",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/a", "node", versionScript("v21.0.0"))
				if err := os.Symlink(root+"/a", root+"/b"); err != nil {
					t.Fatal(err)
				}
				return Options{PathEnv: root + "/a:" + root + "/b"}
			},
			rejected: []wantCandidate{
				{"a/node", "v21.0.0 is below the 22.19 floor"},
				{"b/node", "same file as $ROOT/a/node, already tried"},
			},
		},
		{
			name: "a configured path is the only candidate",
			setup: func(t *testing.T, root string) Options {
				p := fakeBin(t, root+"/cfg", "node", versionScript("v22.18.0"))
				fakeBin(t, root+"/a", "node", versionScript("v24.0.0"))
				return Options{NodePath: p, PathEnv: root + "/a"}
			},
			rejected: []wantCandidate{{"cfg/node", "v22.18.0 is below the 22.19 floor"}},
		},
		{
			name: "a relative configured path is refused",
			setup: func(t *testing.T, root string) Options {
				return Options{NodePath: "bin/node", PathEnv: root}
			},
			rejected: []wantCandidate{{"!bin/node", "a configured path must be absolute"}},
		},
		{
			name: "a missing or directory configured path is refused",
			setup: func(t *testing.T, root string) Options {
				return Options{Kind: KindAuto, BunPath: root, NodePath: root + "/none", PathEnv: root}
			},
			rejected: []wantCandidate{
				{"", "is a directory, not a binary"},
				{"none", "cannot use it: stat $ROOT/none: no such file or directory"},
			},
			fallback: "no usable Bun >=1.4.0: $ROOT: is a directory, not a binary",
		},
		{
			name: "auto prefers bun",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/a", "node", versionScript("v24.0.0"))
				fakeBin(t, root+"/b", "bun", versionScript("1.4.0"))
				return Options{Kind: KindAuto, PathEnv: root + "/a:" + root + "/b"}
			},
			chosen: "b/bun",
		},
		{
			name: "auto falls back to node and says why",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/a", "bun", versionScript("1.3.9"))
				fakeBin(t, root+"/a", "node", versionScript("v24.0.0"))
				return Options{Kind: KindAuto, PathEnv: root + "/a"}
			},
			chosen:   "a/node",
			rejected: []wantCandidate{{"a/bun", "1.3.9 is below the 1.4.0 floor"}},
			fallback: "no usable Bun >=1.4.0: $ROOT/a/bun: 1.3.9 is below the 1.4.0 floor",
		},
		{
			name: "auto with no bun at all",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/a", "node", versionScript("v24.0.0"))
				return Options{Kind: KindAuto, PathEnv: root + "/a"}
			},
			chosen:   "a/node",
			fallback: "no usable Bun >=1.4.0: none found on PATH",
		},
		{
			name: "failing, garbled and non-executable candidates",
			setup: func(t *testing.T, root string) Options {
				fakeBin(t, root+"/a", "node", "echo boom >&2; exit 3")
				fakeBin(t, root+"/b", "node", "echo hello")
				fakeBin(t, root+"/c", "x", "")
				if err := os.WriteFile(root+"/c/node", []byte("#!/bin/sh\necho v24.0.0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return Options{PathEnv: root + "/a:" + root + "/b:" + root + "/c"}
			},
			rejected: []wantCandidate{
				{"a/node", "`--version` failed: exit status 3: boom"},
				{"b/node", `--version printed "hello", not a version`},
			},
		},
		{
			name: "the probe runs with an empty environment",
			setup: func(t *testing.T, root string) Options {
				t.Setenv("CWX_SECRET", "x")
				fakeBin(t, root+"/a", "node", `if /usr/bin/env | grep -v '^PWD=' | grep -q .; then echo "env: $(/usr/bin/env | tr '\n' ' ')" >&2; exit 1; fi; echo v24.0.0`)
				return Options{PathEnv: root + "/a"}
			},
			chosen: "a/node",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			o := tc.setup(t, root)
			res, err := Resolve(context.Background(), o)
			if tc.chosen == "" {
				var nre *NoRuntimeError
				if !errors.As(err, &nre) || !errors.Is(err, ErrNoRuntime) {
					t.Fatalf("Resolve error = %v, want a *NoRuntimeError", err)
				}
				if res.Chosen.Path != "" || res.Chosen.Kind != "" {
					t.Errorf("Chosen = %+v on failure", res.Chosen)
				}
			} else {
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if want := filepath.Join(root, tc.chosen); res.Chosen.Path != want {
					t.Errorf("Chosen.Path = %q, want %q", res.Chosen.Path, want)
				}
			}
			checkRejected(t, root, res.Rejected, tc.rejected)
			if got := strings.ReplaceAll(res.Fallback, root, "$ROOT"); got != tc.fallback {
				t.Errorf("Fallback = %q, want %q", got, tc.fallback)
			}
		})
	}
}

func checkRejected(t *testing.T, root string, got []Candidate, want []wantCandidate) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("rejected = %+v, want %d entries %+v", got, len(want), want)
	}
	for i, w := range want {
		path := filepath.Join(root, w.path)
		if strings.HasPrefix(w.path, "!") {
			path = w.path[1:]
		}
		if got[i].Path != path {
			t.Errorf("rejected[%d].Path = %q, want %q", i, got[i].Path, path)
		}
		if r := strings.ReplaceAll(got[i].Reason, root, "$ROOT"); r != w.reason {
			t.Errorf("rejected[%d].Reason = %q, want %q", i, r, w.reason)
		}
	}
}

func TestResolveNoRuntimeErrorCarriesTheFix(t *testing.T) {
	root := t.TempDir()
	fakeBin(t, root, "node", versionScript("v20.20.2"))
	_, err := Resolve(context.Background(), Options{PathEnv: root, ConfigFile: "/h/config.toml"})
	want := "no usable Node.js runtime; " + root + "/node: v20.20.2 is below the 22.19 floor. Fix: install Node ^22.19 || >=24 " +
		"(in a cwx checkout, `make tools` puts one at .tools/bin/node) and set `[extension_host] node = \"/path/to/node\"` in /h/config.toml"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
}

func TestResolveUnknownKind(t *testing.T) {
	_, err := Resolve(context.Background(), Options{Kind: "deno"})
	if err == nil || errors.Is(err, ErrNoRuntime) || !strings.Contains(err.Error(), `"deno"`) {
		t.Fatalf("error = %v, want an unknown-kind error", err)
	}
}

func TestResolveHangingProbeTimesOut(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "child.pid")
	// The candidate starts a grandchild that would hold stdout open, then hangs.
	fakeBin(t, root+"/a", "node", "sleep 60 & echo $! > "+pidFile+"; wait")
	fakeBin(t, root+"/b", "node", versionScript("v24.0.0"))
	start := time.Now()
	res, err := Resolve(context.Background(), Options{PathEnv: root + "/a:" + root + "/b", ProbeTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 4*time.Second {
		t.Errorf("Resolve took %s with a 300ms probe timeout", elapsed)
	}
	checkRejected(t, root, res.Rejected, []wantCandidate{{"a/node", "`--version` did not answer within 300ms"}})
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// SIGKILL to the probe's group is asynchronous: give the kernel a generous bound to
	// finish the grandchild, then insist it is gone.
	for deadline := time.Now().Add(3 * time.Second); alive(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("the probe's grandchild %d outlived the timeout", pid)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func TestNodeFlagProbeOncePerBinary(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "calls")
	// Accepts --no-experimental-sqlite, refuses --no-experimental-ffi like Node 22.
	p := fakeBin(t, root+"/a", "node", `echo "$*" >> `+log+`
case "$1" in --no-experimental-ffi) echo "bad option: $1" >&2; exit 9;; esac
echo v22.20.0`)
	for i := 0; i < 2; i++ {
		res, err := Resolve(context.Background(), Options{PathEnv: filepath.Dir(p)})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Chosen.NodeFlags, " "); got != "--no-experimental-sqlite" {
			t.Errorf("run %d: NodeFlags = %q", i, got)
		}
	}
	b, _ := os.ReadFile(log)
	want := "--version\n--no-experimental-sqlite --version\n--no-experimental-ffi --version\n--version\n"
	if string(b) != want {
		t.Errorf("invocations:\n%s\nwant:\n%s", b, want)
	}
}

func TestResolveRealRuntimes(t *testing.T) {
	node := testenv.Node(t)
	if _, err := os.Stat("/usr/bin/node"); err != nil {
		t.Fatalf("this machine's /usr/bin/node (Node 20) is part of the scenario: %v", err)
	}
	res, err := Resolve(context.Background(), Options{PathEnv: "/usr/bin:" + filepath.Dir(node.Path), WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chosen.Path != node.Path || !strings.HasPrefix(res.Chosen.Version, "v22.") {
		t.Errorf("Chosen = %+v, want %s (v22)", res.Chosen, node.Path)
	}
	if len(res.Rejected) == 0 || res.Rejected[0].Path != "/usr/bin/node" ||
		!strings.HasSuffix(res.Rejected[0].Reason, "is below the 22.19 floor") {
		t.Errorf("Rejected = %+v, want /usr/bin/node below the 22.19 floor first", res.Rejected)
	}
	if got := strings.Join(res.Chosen.NodeFlags, " "); got != "--no-experimental-sqlite" {
		t.Errorf("Node 22 NodeFlags = %q, want --no-experimental-sqlite (it has no --no-experimental-ffi)", got)
	}
	bun := testenv.Bun(t)
	res, err = Resolve(context.Background(), Options{Kind: KindAuto, BunPath: bun.Path, PathEnv: "/nonexistent"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chosen.Kind != KindBun || res.Chosen.Path != bun.Path || res.Fallback != "" {
		t.Errorf("auto with Bun configured: %+v", res)
	}
}
