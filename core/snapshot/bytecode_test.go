package snapshot

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// bunOptions are the bytecode inputs of the test Bun, as the core computes them, and the
// runtime they were computed for.
func bunOptions(t *testing.T, home string) (Options, runtime.Runtime) {
	t.Helper()
	bun := testenv.Bun(t).Path
	res, err := runtime.Resolve(context.Background(), runtime.Options{Kind: runtime.KindBun, BunPath: bun})
	if err != nil {
		t.Fatal(err)
	}
	o, why := For(home, config.ExtensionHost{Snapshot: config.SnapshotAuto}, res.Chosen, jshost.BundleSHA256())
	if why != "" || o.Kind != runtime.KindBun {
		t.Fatalf("no bytecode for %s: %s", bun, why)
	}
	return o, res.Chosen
}

func prepareBytecode(t *testing.T, o Options) *Bytecode {
	t.Helper()
	c, err := PrepareBytecode(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBytecodeBuildFindVerify: the first PrepareBytecode builds Bun's CommonJS build of the
// entry and its .jsc, the next finds them, they verify; the folder and files are read-only;
// the script is Bun's bytecode form, and Bun runs it with the run flags past the lockdown's
// checks (without the channel on fds 3 and 4 the Bun host ends quietly with status 0, as it
// does from the bundle; a failed check exits 70 naming the lockdown).
func TestBytecodeBuildFindVerify(t *testing.T) {
	home := t.TempDir()
	o, rt := bunOptions(t, home)
	c := prepareBytecode(t, o)
	if !c.Built || len(c.ScriptSHA256) != 64 || len(c.CodeSHA256) != 64 || c.CodeSize < 64<<10 {
		t.Fatalf("first PrepareBytecode = %+v, want a built cache", c)
	}
	again := prepareBytecode(t, o)
	if again.Built || again.CodeSHA256 != c.CodeSHA256 || again.Script != c.Script {
		t.Fatalf("second PrepareBytecode = %+v, want the cache of the first %+v", again, c)
	}
	if _, err := again.Verify(); err != nil {
		t.Fatal(err)
	}
	if found, err := FindBytecode(o); err != nil || found.Key != c.Key {
		t.Fatalf("FindBytecode = %+v, %v", found, err)
	}
	for path, want := range map[string]os.FileMode{c.Dir: 0o755, c.Script: 0o444, c.Script + ".jsc": 0o444, Dir(home): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, mode %v; want %v", path, err, fi.Mode().Perm(), want)
		}
	}
	head, err := os.ReadFile(c.Script)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(head), "// @bun @bytecode @bun-cjs") {
		t.Fatalf("the script is not Bun's bytecode form: %.80q", head)
	}
	plan := rt.LaunchPlan(c.Script, "plugin", 0, []string{"CWX_TEST_RUN_MARKER=" + testenv.Marker()})
	cmd := exec.Command(plan.Argv[0], plan.Argv[1:]...)
	cmd.Env = plan.Env
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("bun running the bytecode: %v: %s", err, out)
	}
}

// TestBytecodeTamperedNeverUsed: a .jsc or script changed (a new file renamed over it, or a
// symlink), fails Verify with ErrVerify and forgets the cache; the next PrepareBytecode
// builds it again.
func TestBytecodeTamperedNeverUsed(t *testing.T) {
	home := t.TempDir()
	o, _ := bunOptions(t, home)
	for name, tamper := range map[string]func(t *testing.T, c *Bytecode){
		"jsc changed": func(t *testing.T, c *Bytecode) {
			raw, err := os.ReadFile(c.Script + ".jsc")
			if err != nil {
				t.Fatal(err)
			}
			raw[len(raw)/2] ^= 0xff
			replace(t, c.Script+".jsc", raw)
		},
		"script changed": func(t *testing.T, c *Bytecode) {
			raw, err := os.ReadFile(c.Script)
			if err != nil {
				t.Fatal(err)
			}
			raw[len(raw)/2] ^= 0x01
			replace(t, c.Script, raw)
		},
		"jsc a symlink": func(t *testing.T, c *Bytecode) {
			other := filepath.Join(t.TempDir(), "other.jsc")
			copyFile(t, c.Script+".jsc", other)
			if err := os.Remove(c.Script + ".jsc"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, c.Script+".jsc"); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := prepareBytecode(t, o)
			tamper(t, c)
			if _, err := c.Verify(); !errors.Is(err, ErrVerify) {
				t.Fatalf("Verify = %v, want ErrVerify", err)
			}
			if _, err := FindBytecode(o); err == nil {
				t.Fatal("the tampered cache is still recorded")
			}
			if c = prepareBytecode(t, o); !c.Built {
				t.Fatal("PrepareBytecode after a failed verification did not build again")
			}
			if _, err := c.Verify(); err != nil {
				t.Fatalf("the rebuilt cache: %v", err)
			}
		})
	}
}

// TestBytecodeKeyFollowsRuntime: a Bun upgrade (another binary, or the same path rewritten),
// another version, entry or run flags give another key, so PrepareBytecode builds again.
func TestBytecodeKeyFollowsRuntime(t *testing.T) {
	home := t.TempDir()
	o, _ := bunOptions(t, home)
	c := prepareBytecode(t, o)
	upgraded := filepath.Join(t.TempDir(), "bun")
	copyFile(t, o.Runtime, upgraded)
	u := o
	u.Runtime = upgraded
	uc := prepareBytecode(t, u)
	if uc.Key == c.Key || !uc.Built {
		t.Fatalf("another runtime binary: key %s built %v, want a new build beside %s", uc.Key, uc.Built, c.Key)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(upgraded, later, later); err != nil {
		t.Fatal(err)
	}
	if k, err := BytecodeKey(u); err != nil || k == uc.Key {
		t.Fatalf("rewritten runtime: key %s (%v), want other than %s", k, err, uc.Key)
	}
	for name, change := range map[string]func(*Options){
		"run flags": func(o *Options) { o.RunFlags = o.RunFlags[:len(o.RunFlags)-1] },
		"version":   func(o *Options) { o.Version = "9.9.9" },
		"entry":     func(o *Options) { o.EntrySHA256 = strings.Repeat("0", 64) },
	} {
		x := o
		x.RunFlags = append([]string{}, o.RunFlags...)
		change(&x)
		if k, err := BytecodeKey(x); err != nil || k == c.Key {
			t.Errorf("%s changed: key %s (%v), want other than %s", name, k, err, c.Key)
		}
	}
	if k, err := Key(o); err != nil || k == c.Key {
		t.Errorf("a snapshot key equals the bytecode key: %s (%v)", k, err)
	}
}

// TestBytecodeBuildFailureSaysWhy: a runtime whose build fails gives an error naming the
// build and its last line, and records nothing.
func TestBytecodeBuildFailureSaysWhy(t *testing.T) {
	home := t.TempDir()
	fake := filepath.Join(t.TempDir(), "bun")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'error: bytecode is not supported here' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Home: home, Kind: runtime.KindBun, Runtime: fake, Version: "1.0.0", Entry: jshost.BunEntry(), EntrySHA256: jshost.BunEntrySHA256()}
	_, err := PrepareBytecode(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "build the host bytecode") || !strings.Contains(err.Error(), "bytecode is not supported here") {
		t.Fatalf("PrepareBytecode = %v, want the build's failure", err)
	}
	if _, err := FindBytecode(o); err == nil {
		t.Fatal("a failed build was recorded")
	}
}
