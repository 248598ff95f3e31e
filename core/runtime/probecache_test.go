package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// newProcess forgets what this process probed, as a new cwx process would have, so only
// the persistent cache carries results from one Resolve to the next.
func newProcess(t *testing.T) {
	t.Helper()
	flagCache.Lock()
	flagCache.m = map[binaryKey][]string{}
	flagCache.Unlock()
	sandboxProbes.Lock()
	sandboxProbes.m = map[string]string{}
	sandboxProbes.Unlock()
}

// execLog reads the lines a wrapper script appended, one per start.
func execLog(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// touch gives path a new modification time (and so a new identity).
func touch(t *testing.T, path string) {
	t.Helper()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func TestResolveProbeCache(t *testing.T) {
	const nodeLike = `case "$1" in --no-experimental-ffi) echo "bad option: $1" >&2; exit 9;; esac
echo v22.20.0`
	tests := []struct {
		name string
		body string // the fake node after it logs its arguments
		// between runs the second Resolve; change may alter the binary
		change func(t *testing.T, bin string)
		want   [2]int // probe processes started by the first and by the second Resolve
		usable bool
	}{
		{name: "hit skips every probe", body: nodeLike, want: [2]int{3, 0}, usable: true},
		{name: "touched binary is probed again", body: nodeLike, usable: true, want: [2]int{3, 3},
			change: func(t *testing.T, bin string) { touch(t, bin) }},
		{name: "replaced binary is probed again", body: nodeLike, usable: true, want: [2]int{3, 3},
			change: func(t *testing.T, bin string) {
				b, err := os.ReadFile(bin)
				if err != nil {
					t.Fatal(err)
				}
				tmp := bin + ".new"
				if err := os.WriteFile(tmp, b, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, bin); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a failing --version is not cached", body: `echo "segfault" >&2; exit 1`, want: [2]int{1, 1}},
		{name: "a version below the floor is not cached", body: `echo v20.1.0`, want: [2]int{1, 1}},
		// --version answered and is cached; the flags are probed again.
		{name: "a flag probe that timed out is not cached", usable: true, want: [2]int{3, 2},
			body: `case "$1" in --no-experimental-ffi) exec sleep 30;; esac
echo v22.20.0`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			newProcess(t)
			root := t.TempDir()
			log := filepath.Join(root, "execs")
			bin := fakeBin(t, filepath.Join(root, "bin"), "node", `echo "$*" >> `+log+"\n"+tc.body)
			cache := probecache.Open(filepath.Join(root, "home"), probecache.Options{})
			o := Options{NodePath: bin, Cache: cache, ProbeTimeout: 2 * time.Second}
			var first Runtime
			for run := 0; run < 2; run++ {
				newProcess(t)
				if run == 1 && tc.change != nil {
					tc.change(t, bin)
				}
				before := len(execLog(t, log))
				res, err := Resolve(context.Background(), o)
				if (err == nil) != tc.usable {
					t.Fatalf("run %d: err = %v, want usable %v", run, err, tc.usable)
				}
				if got := len(execLog(t, log)) - before; got != tc.want[run] {
					t.Errorf("run %d started %d probe processes, want %d: %q", run, got, tc.want[run], execLog(t, log)[before:])
				}
				if run == 0 {
					first = res.Chosen
				} else if res.Chosen.Version != first.Version || strings.Join(res.Chosen.NodeFlags, " ") != strings.Join(first.NodeFlags, " ") {
					t.Errorf("the cached run chose %+v, the probed one %+v", res.Chosen, first)
				}
			}
			if tc.usable && tc.name == "hit skips every probe" && strings.Join(first.NodeFlags, " ") != "--no-experimental-sqlite" {
				t.Errorf("NodeFlags = %q, want --no-experimental-sqlite", first.NodeFlags)
			}
		})
	}
}

// TestResolveNoCacheProbesEveryTime is what `cwx doctor` relies on: without a cache every
// process probes.
func TestResolveNoCacheProbesEveryTime(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "execs")
	bin := fakeBin(t, filepath.Join(root, "bin"), "node", `echo "$*" >> `+log+"\necho v22.20.0")
	for run := 0; run < 2; run++ {
		newProcess(t)
		if _, err := Resolve(context.Background(), Options{NodePath: bin}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(execLog(t, log)); n != 6 {
		t.Errorf("two uncached resolutions started %d probes, want 6", n)
	}
}

// wrapper writes an executable that logs each start to log and then runs real.
func wrapper(t *testing.T, dir, name, real, log string) string {
	t.Helper()
	return fakeBin(t, dir, name, `echo "$*" >> `+log+`
exec `+real+` "$@"`)
}

// TestResolveProbeCacheRealRuntimes resolves the real Node and Bun through a wrapper that
// counts starts: the second process starts none, and a touched binary is probed again.
func TestResolveProbeCacheRealRuntimes(t *testing.T) {
	for _, l := range testenv.Runtimes() {
		t.Run(l.Name, func(t *testing.T) {
			rt := l.Get(t)
			root := t.TempDir()
			log := filepath.Join(root, "execs")
			bin := wrapper(t, filepath.Join(root, "bin"), l.Name, rt.Path, log)
			o := Options{Kind: Kind(l.Name), NodePath: bin, BunPath: bin,
				Cache: probecache.Open(filepath.Join(root, "home"), probecache.Options{})}
			probes := 1 // --version
			if l.Name == "node" {
				probes += len(optionalNodeFlags)
			}
			var first Runtime
			for run, want := range []int{probes, 0, probes} {
				newProcess(t)
				if run == 2 {
					touch(t, bin)
				}
				before := len(execLog(t, log))
				res, err := Resolve(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				if got := len(execLog(t, log)) - before; got != want {
					t.Errorf("run %d started %d probes, want %d", run, got, want)
				}
				if run == 0 {
					first = res.Chosen
				} else if res.Chosen.Version != first.Version || strings.Join(res.Chosen.Args(), " ") != strings.Join(first.Args(), " ") {
					t.Errorf("run %d chose %+v, the first %+v", run, res.Chosen, first)
				}
			}
		})
	}
}

// TestProbeSandboxCached runs the real sandbox probe through a bubblewrap wrapper that
// counts starts, with the real Node and Bun inside.
func TestProbeSandboxCached(t *testing.T) {
	realBwrap, err := ResolveBwrap("", os.Getenv("PATH")+":/usr/bin", "")
	if err != nil {
		if testenv.InCI() {
			t.Fatal("bubblewrap is not installed")
		}
		t.Skip("bubblewrap is not installed")
	}
	for _, l := range testenv.Runtimes() {
		t.Run(l.Name, func(t *testing.T) {
			rt := l.Get(t)
			root := t.TempDir()
			log := filepath.Join(root, "execs")
			bw := wrapper(t, filepath.Join(root, "bin"), "bwrap", realBwrap, log)
			setting := filepath.Join(root, "max_user_namespaces")
			if err := os.WriteFile(setting, []byte("15000\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			saved := sandboxSettings
			sandboxSettings = append(append([]string(nil), saved...), setting)
			t.Cleanup(func() { sandboxSettings = saved })
			cache := probecache.Open(filepath.Join(root, "home"), probecache.Options{})
			steps := []struct {
				name   string
				change func()
				want   int
			}{
				{"first", nil, 1},
				{"hit", nil, 0},
				{"kernel setting changed", func() {
					if err := os.WriteFile(setting, []byte("0\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}, 1},
				{"hit again", nil, 0},
				{"bubblewrap touched", func() { touch(t, bw) }, 1},
				// The same runtime file through a symlink: the profile binds the link too, so
				// its arguments, and the key, differ.
				{"the runtime through a symlink", nil, 1},
				{"the symlink again", nil, 0},
			}
			runtimePath := rt.Path
			for i, s := range steps {
				newProcess(t)
				if s.change != nil {
					s.change()
				}
				if i == len(steps)-2 {
					runtimePath = filepath.Join(root, "link-"+l.Name)
					if err := os.Symlink(rt.Path, runtimePath); err != nil {
						t.Fatal(err)
					}
				}
				before := len(execLog(t, log))
				if why := ProbeSandboxCached(context.Background(), cache, Profile{Bwrap: bw, Runtime: runtimePath}, 10*time.Second); why != "" {
					t.Fatalf("%s: probe failed: %s", s.name, why)
				}
				if got := len(execLog(t, log)) - before; got != s.want {
					t.Errorf("%s: bubblewrap started %d times, want %d", s.name, got, s.want)
				}
			}
		})
	}
}

func TestProbeSandboxFailureNotCached(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "execs")
	bw := fakeBin(t, filepath.Join(root, "bin"), "bwrap", `echo "$*" >> `+log+`
echo "bwrap: No permissions to create new namespace" >&2; exit 1`)
	cache := probecache.Open(filepath.Join(root, "home"), probecache.Options{})
	for run := 0; run < 2; run++ {
		newProcess(t)
		if why := ProbeSandboxCached(context.Background(), cache, Profile{Bwrap: bw, Runtime: "/usr/bin/true"}, 5*time.Second); !strings.Contains(why, "namespace") {
			t.Fatalf("run %d: why = %q, want the namespace failure", run, why)
		}
	}
	if n := len(execLog(t, log)); n != 2 {
		t.Errorf("a failing sandbox probe ran %d times in two processes, want 2 (failures are not cached)", n)
	}
}

// countingCache is a ProbeCache in memory that counts its reads.
type countingCache struct {
	m    map[string]string
	gets int
}

func (c *countingCache) Get(key string) (string, bool) { c.gets++; v, ok := c.m[key]; return v, ok }
func (c *countingCache) Put(key, value string)         { c.m[key] = value }

// TestNodeFlagsCacheHitKeptInProcess: the flags an earlier process cached answer the first
// call, and the calls after it in this process are answered from memory, without reading
// the cache again or starting a probe.
func TestNodeFlagsCacheHitKeptInProcess(t *testing.T) {
	newProcess(t)
	t.Cleanup(func() { newProcess(t) })
	root := t.TempDir()
	log := filepath.Join(root, "execs")
	bin := fakeBin(t, filepath.Join(root, "bin"), "node", `echo "$*" >> `+log+"\necho v22.20.0")
	key, ok := probecache.Keyed("node-flags", []string{bin}, optionalNodeFlags...)
	if !ok {
		t.Fatal("no cache key for the fake node")
	}
	cache := &countingCache{m: map[string]string{key: "--no-experimental-sqlite"}}
	for call := range 3 {
		flags := acceptedNodeFlags(context.Background(), cache, 2*time.Second, bin)
		if strings.Join(flags, " ") != "--no-experimental-sqlite" {
			t.Fatalf("call %d: flags %q, want the cached --no-experimental-sqlite", call, flags)
		}
	}
	if cache.gets != 1 {
		t.Errorf("three calls read the cache %d times, want 1 (the process keeps the hit)", cache.gets)
	}
	if probes := execLog(t, log); len(probes) != 0 {
		t.Errorf("a cached binary was probed: %q", probes)
	}
}
