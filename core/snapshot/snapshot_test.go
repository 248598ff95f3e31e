package snapshot

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// nodeOptions are the snapshot inputs of the test Node, as the core computes them.
func nodeOptions(t *testing.T, home, node string) Options {
	t.Helper()
	res, err := runtime.Resolve(context.Background(), runtime.Options{Kind: runtime.KindNode, NodePath: node})
	if err != nil {
		t.Fatal(err)
	}
	o, why := For(home, config.ExtensionHost{Snapshot: config.SnapshotAuto}, res.Chosen, jshost.BundleSHA256())
	if why != "" {
		t.Fatalf("no snapshot for %s: %s", node, why)
	}
	return o
}

func prepare(t *testing.T, o Options) *Blob {
	t.Helper()
	b, err := Prepare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// verified opens and verifies b, as a start does.
func verified(b *Blob) error {
	f, err := b.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = b.Verify(f)
	return err
}

// TestBuildFindVerify: the first Prepare builds, the next finds the same blob, which
// verifies; the folder is private and the blob read-only; Node starts from the blob with
// the run flags and its lockdown's checks hold (the host reaches its channel setup).
func TestBuildFindVerify(t *testing.T) {
	node := testenv.Node(t).Path
	home := t.TempDir()
	o := nodeOptions(t, home, node)
	b := prepare(t, o)
	if !b.Built || len(b.SHA256) != 64 || b.Size < 1<<20 {
		t.Fatalf("first Prepare = %+v, want a built blob", b)
	}
	again := prepare(t, o)
	if again.Built || again.SHA256 != b.SHA256 || again.Path != b.Path {
		t.Fatalf("second Prepare = %+v, want the blob of the first %+v", again, b)
	}
	if err := verified(again); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(Dir(home))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("snapshot folder: %v, mode %v; want 0700", err, fi.Mode())
	}
	if fi, err := os.Stat(b.Path); err != nil || fi.Mode().Perm() != 0o444 {
		t.Fatalf("blob: %v, mode %v; want 0444", err, fi.Mode())
	}
	// the runtime reads the descriptor as the shim hands it on: fd 7, /proc/self/fd/7
	f, err := b.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	args := append(append([]string{}, o.RunFlags...), "--snapshot-blob", "/proc/self/fd/7", "bundle.mjs", "--tier=plugin")
	cmd := exec.Command(node, args...)
	cmd.Env = []string{"NODE_OPTIONS=", "CWX_TEST_RUN_MARKER=" + testenv.Marker()}
	cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, f}
	out, _ := cmd.CombinedOutput()
	// without the channel on fds 3 and 4 the host fails at its first step, past the snapshot
	if !strings.Contains(string(out), "ERR_INVALID_FD_TYPE") && !strings.Contains(string(out), "EBADF") {
		t.Fatalf("node from the snapshot: %s", out)
	}
}

// TestCodeCacheAcceptedUnderRunFlags: the code cache of Node's own modules that the snapshot
// carries is accepted under the run flags, so a built-in module the host loads after the start
// (its stdio, the watchdog Worker's whole boot) is not compiled from source: V8 compares
// --max-old-space-size (runtime.Runtime.SnapshotBuildFlags). Node says which it did under
// NODE_DEBUG_NATIVE=CODE_CACHE; the host runs to host/hello on a channel of its own.
func TestCodeCacheAcceptedUnderRunFlags(t *testing.T) {
	node := testenv.Node(t).Path
	o := nodeOptions(t, t.TempDir(), node)
	b := prepare(t, o)
	f, err := b.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toHost, fromCore, err := os.Pipe() // the host's fd 3
	if err != nil {
		t.Fatal(err)
	}
	fromHost, toCore, err := os.Pipe() // the host's fd 4
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, o.RunFlags...), "--snapshot-blob", "/proc/self/fd/7", "bundle.mjs", "--tier=plugin")
	cmd := exec.Command(node, args...)
	cmd.Env = []string{"NODE_OPTIONS=", "NODE_DEBUG_NATIVE=CODE_CACHE", "CWX_TEST_RUN_MARKER=" + testenv.Marker()}
	cmd.ExtraFiles = []*os.File{toHost, toCore, nil, nil, f}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_, _ = toHost.Close(), toCore.Close()
	head := make([]byte, 4)
	_, readErr := io.ReadFull(fromHost, head) // host/hello: the boot is done
	_ = fromCore.Close()                      // EOF on fd 3 ends the host
	if err := cmd.Wait(); err != nil || readErr != nil || string(head) != "CWX1" {
		t.Fatalf("host from the snapshot: %v, first bytes %q (%v); output:\n%s", err, head, readErr, out.String())
	}
	var accepted, rejected []string
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasSuffix(line, " is accepted"):
			accepted = append(accepted, line)
		case strings.HasSuffix(line, " is rejected"):
			rejected = append(rejected, line)
		}
	}
	if len(rejected) > 0 || len(accepted) == 0 {
		t.Fatalf("built with %q, run with %q: %d code caches rejected (first: %q), %d accepted",
			o.BuildFlags, o.RunFlags, len(rejected), append(rejected, "")[0], len(accepted))
	}
}

// TestTamperedOrSwappedNeverUsed: a blob changed in place (same size), or swapped for a valid
// snapshot of other flags, fails Verify with ErrVerify and is forgotten; the next Prepare
// builds it again.
func TestTamperedOrSwappedNeverUsed(t *testing.T) {
	node := testenv.Node(t).Path
	home := t.TempDir()
	o := nodeOptions(t, home, node)
	b := prepare(t, o)

	raw, err := os.ReadFile(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0xff
	replace(t, b.Path, raw)
	if err := verified(b); !errors.Is(err, ErrVerify) {
		t.Fatalf("tampered blob: Verify = %v, want ErrVerify", err)
	}
	if _, err := os.Stat(b.Path); !os.IsNotExist(err) {
		t.Fatalf("the tampered blob is still there: %v", err)
	}
	b = prepare(t, o)
	if !b.Built {
		t.Fatal("Prepare after a failed verification did not build again")
	}

	other := o
	other.RunFlags = append(append([]string{}, o.RunFlags...), "--stack-size=900")
	ob := prepare(t, other)
	if ob.Key == b.Key {
		t.Fatal("another flag gave the same key")
	}
	swapped, err := os.ReadFile(ob.Path)
	if err != nil {
		t.Fatal(err)
	}
	replace(t, b.Path, swapped)
	if err := verified(b); !errors.Is(err, ErrVerify) {
		t.Fatalf("swapped blob: Verify = %v, want ErrVerify", err)
	}
	if err := verified(ob); err != nil {
		t.Fatalf("the other key's blob: %v", err)
	}
}

// replace puts data at path the way an attacker with the user's rights could: a new file
// renamed over it.
func replace(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".evil"
	if err := os.WriteFile(tmp, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestKeyFollowsRuntimeAndFlags: a runtime upgrade (another binary, or the same path
// rewritten), a flag change or another entry gives another key, so Prepare builds again.
func TestKeyFollowsRuntimeAndFlags(t *testing.T) {
	node := testenv.Node(t).Path
	home := t.TempDir()
	o := nodeOptions(t, home, node)
	b := prepare(t, o)

	upgraded := filepath.Join(t.TempDir(), "node")
	copyFile(t, node, upgraded)
	u := o
	u.Runtime = upgraded
	ub := prepare(t, u)
	if ub.Key == b.Key || !ub.Built {
		t.Fatalf("another runtime binary: key %s built %v, want a new build beside %s", ub.Key, ub.Built, b.Key)
	}
	// the same path, rewritten in place (an upgrade by the package manager)
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(upgraded, later, later); err != nil {
		t.Fatal(err)
	}
	if k, err := Key(u); err != nil || k == ub.Key {
		t.Fatalf("rewritten runtime: key %s (%v), want other than %s", k, err, ub.Key)
	}
	for name, change := range map[string]func(*Options){
		"run flags":   func(o *Options) { o.RunFlags = o.RunFlags[:len(o.RunFlags)-1] },
		"build flags": func(o *Options) { o.BuildFlags = nil },
		"version":     func(o *Options) { o.Version = "v99.0.0" },
		"entry":       func(o *Options) { o.EntrySHA256 = strings.Repeat("0", 64) },
	} {
		c := o
		c.RunFlags = append([]string{}, o.RunFlags...)
		change(&c)
		if k, err := Key(c); err != nil || k == b.Key {
			t.Errorf("%s changed: key %s (%v), want other than %s", name, k, err, b.Key)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentPrepareBuildsOnce: two Prepares at once (two cores starting together) build
// one snapshot; the other waits on the lock and finds it.
func TestConcurrentPrepareBuildsOnce(t *testing.T) {
	node := testenv.Node(t).Path
	home := t.TempDir()
	o := nodeOptions(t, home, node)
	var wg sync.WaitGroup
	blobs := make([]*Blob, 2)
	errs := make([]error, 2)
	for i := range blobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			blobs[i], errs[i] = Prepare(context.Background(), o)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if blobs[0].Built == blobs[1].Built || blobs[0].SHA256 != blobs[1].SHA256 {
		t.Fatalf("built %v and %v (sha256 %s, %s), want one build both use", blobs[0].Built, blobs[1].Built, blobs[0].SHA256, blobs[1].SHA256)
	}
}

// TestForSaysWhyNot: off and a foreign bundle never get a snapshot; Node gets the snapshot
// entry, Bun the bytecode entry.
func TestForSaysWhyNot(t *testing.T) {
	node := runtime.Runtime{Kind: runtime.KindNode, Path: "/n", Version: "v22.23.5"}
	on := config.ExtensionHost{Snapshot: config.SnapshotAuto}
	for name, tc := range map[string]struct {
		eh     config.ExtensionHost
		rt     runtime.Runtime
		bundle string
		want   string
	}{
		"off":     {config.ExtensionHost{Snapshot: config.SnapshotOff}, node, jshost.BundleSHA256(), "off"},
		"other":   {on, runtime.Runtime{Kind: "deno", Path: "/d"}, jshost.BundleSHA256(), "not for deno"},
		"foreign": {on, node, strings.Repeat("a", 64), "other than the embedded"},
	} {
		if _, why := For("/h", tc.eh, tc.rt, tc.bundle); !strings.Contains(why, tc.want) {
			t.Errorf("%s: why = %q, want %q", name, why, tc.want)
		}
	}
	o, why := For("/h", on, node, jshost.BundleSHA256())
	if why != "" || o.Kind != runtime.KindNode || o.EntrySHA256 != jshost.SnapshotEntrySHA256() || strings.Join(o.RunFlags, " ") != strings.Join(node.Args(), " ") {
		t.Fatalf("For = %+v, %q", o, why)
	}
	bun := runtime.Runtime{Kind: runtime.KindBun, Path: "/b", Version: "1.4.5"}
	o, why = For("/h", on, bun, jshost.BundleSHA256())
	if why != "" || o.Kind != runtime.KindBun || o.EntrySHA256 != jshost.BunEntrySHA256() || len(o.BuildFlags) != 0 ||
		strings.Join(o.RunFlags, " ") != strings.Join(bun.Args(), " ") {
		t.Fatalf("For(bun) = %+v, %q", o, why)
	}
}
