package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
)

// Names inside a bytecode folder: the entry (the embedded Bun entry, whose path Bun's build
// bakes in as __filename), Bun's build of it, and the bytecode Bun reads beside that build.
const (
	bunEntryFile  = "entry.cjs"
	bunScriptFile = "entry.js"
	bunCodeFile   = bunScriptFile + ".jsc"
)

// Bytecode is one built bytecode cache of the Bun host: a read-only folder holding the entry,
// Bun's CommonJS build of it (the script the runtime runs) and its .jsc.
type Bytecode struct {
	Dir          string // the folder, bound read-only into a sandbox
	Script       string // the script the runtime runs, in Dir
	Key          string // hex key
	EntrySHA256  string // the entry's sha256, reported in host/hello when the host runs Script
	ScriptSHA256 string // recorded sha256 of Script
	ScriptSize   int64
	CodeSHA256   string // recorded sha256 of the .jsc
	CodeSize     int64
	Built        bool // built by this PrepareBytecode (not found)
	manifest     string
}

type bytecodeManifest struct {
	Key          string   `json:"key"`
	EntrySHA256  string   `json:"entry_sha256"`
	ScriptSHA256 string   `json:"script_sha256"`
	ScriptSize   int64    `json:"script_size"`
	CodeSHA256   string   `json:"jsc_sha256"`
	CodeSize     int64    `json:"jsc_size"`
	Bun          string   `json:"bun"`
	Version      string   `json:"version"`
	BuildFlags   []string `json:"build_flags"`
	RunFlags     []string `json:"run_flags"`
}

// bunBuildFlags are the flags of `bun build` for the bytecode: the one form Bun compiles to
// bytecode without --compile.
var bunBuildFlags = []string{"build", "--bytecode", "--format=cjs", "--target=bun"}

// BytecodeKey is the bytecode cache's key for o (Runtime is the Bun binary).
func BytecodeKey(o Options) (string, error) {
	id, err := probecache.Identity(o.Runtime)
	if err != nil {
		return "", fmt.Errorf("identify %s: %w", o.Runtime, err)
	}
	h := sha256.New()
	for _, part := range []string{"cwx-host-bytecode-1", id, o.Version, o.EntrySHA256,
		strings.Join(bunBuildFlags, "\x00"), strings.Join(o.RunFlags, "\x00")} {
		h.Write([]byte(part))
		h.Write([]byte{0xff})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func newBytecode(o Options, key string) *Bytecode {
	dir := filepath.Join(Dir(o.Home), key+".bun")
	return &Bytecode{Dir: dir, Script: filepath.Join(dir, bunScriptFile), Key: key, EntrySHA256: o.EntrySHA256,
		manifest: filepath.Join(Dir(o.Home), key+".bun.json")}
}

// PrepareBytecode returns the bytecode cache for o, building it when there is none yet.
func PrepareBytecode(ctx context.Context, o Options) (*Bytecode, error) {
	key, err := BytecodeKey(o)
	if err != nil {
		return nil, err
	}
	if err := privateDir(Dir(o.Home)); err != nil {
		return nil, err
	}
	c := newBytecode(o, key)
	if c.load() == nil {
		return c, nil
	}
	unlock, err := lock(filepath.Join(Dir(o.Home), key+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	if c.load() == nil { // another core built it while this one waited
		return c, nil
	}
	if err := c.build(ctx, o); err != nil {
		return nil, err
	}
	c.Built = true
	return c, nil
}

// FindBytecode returns the bytecode cache for o when one has been built, without building it.
func FindBytecode(o Options) (*Bytecode, error) {
	key, err := BytecodeKey(o)
	if err != nil {
		return nil, err
	}
	c := newBytecode(o, key)
	if err := c.load(); err != nil {
		return nil, err
	}
	return c, nil
}

// load reads the manifest and checks both files' sizes; an error means there is no usable cache.
func (c *Bytecode) load() error {
	var m bytecodeManifest
	if err := readManifest(c.manifest, &m); err != nil {
		return err
	}
	if m.Key != c.Key || m.EntrySHA256 != c.EntrySHA256 ||
		len(m.ScriptSHA256) != 64 || len(m.CodeSHA256) != 64 {
		return fmt.Errorf("%s: not the manifest of bytecode cache %s", c.manifest, c.Key)
	}
	for _, f := range []struct {
		path string
		size int64
	}{{c.Script, m.ScriptSize}, {c.code(), m.CodeSize}} {
		fi, err := os.Lstat(f.path)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() || fi.Size() != f.size {
			return fmt.Errorf("%s: %w (size %d, recorded %d)", f.path, ErrVerify, fi.Size(), f.size)
		}
	}
	c.ScriptSHA256, c.ScriptSize, c.CodeSHA256, c.CodeSize = m.ScriptSHA256, m.ScriptSize, m.CodeSHA256, m.CodeSize
	return nil
}

func (c *Bytecode) code() string { return c.Script + ".jsc" }

// build writes the entry into a fresh folder, runs Bun's build there, makes the folder and
// its files read-only and writes the manifest last: a folder without a manifest is never
// used, and the next build replaces it.
func (c *Bytecode) build(ctx context.Context, o Options) error {
	_ = os.Remove(c.manifest)
	if err := os.RemoveAll(c.Dir); err != nil {
		return fmt.Errorf("remove the old bytecode cache: %w", err)
	}
	if err := os.Mkdir(c.Dir, 0o700); err != nil {
		return fmt.Errorf("create the bytecode cache: %w", err)
	}
	entry := filepath.Join(c.Dir, bunEntryFile)
	if err := atomicWrite(entry, o.Entry, 0o444); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	args := append(append([]string(nil), bunBuildFlags...), entry, "--outdir", c.Dir)
	cmd := exec.CommandContext(ctx, o.Runtime, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + c.Dir, "NO_COLOR=1"}
	cmd.Dir = c.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build the host bytecode with %s: %w: %s", o.Runtime, err, lastLine(out.String()))
	}
	m := bytecodeManifest{Key: c.Key, EntrySHA256: o.EntrySHA256, Bun: o.Runtime, Version: o.Version,
		BuildFlags: bunBuildFlags, RunFlags: o.RunFlags}
	var err error
	if m.ScriptSHA256, m.ScriptSize, err = hashFile(c.Script); err != nil {
		return fmt.Errorf("bun build wrote no %s: %w", bunScriptFile, err)
	}
	if m.CodeSHA256, m.CodeSize, err = hashFile(c.code()); err != nil {
		return fmt.Errorf("bun build wrote no %s: %w", bunCodeFile, err)
	}
	// The folder is readable by the sandbox uid of a root cwx: inside a sandbox its parents are
	// the sandbox's own, outside them Dir(home) stays 0700.
	for _, p := range []string{c.Script, c.code()} {
		if err := os.Chmod(p, 0o444); err != nil {
			return err
		}
	}
	if err := os.Chmod(c.Dir, 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicWrite(c.manifest, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	c.ScriptSHA256, c.ScriptSize, c.CodeSHA256, c.CodeSize = m.ScriptSHA256, m.ScriptSize, m.CodeSHA256, m.CodeSize
	return nil
}

// Verify hashes the script and the .jsc, each through a descriptor that refuses a symlink,
// against the recorded sha256s, and returns how long that took. A mismatch wraps ErrVerify
// and forgets the cache. Bun opens both by path (the .jsc is found beside the script), so
// what it reads is what was verified unless something that can write Dir(home) — no
// sandboxed host can — changes them in between; JavaScriptCore also refuses bytecode whose
// source does not match.
func (c *Bytecode) Verify() (time.Duration, error) {
	t0 := time.Now()
	for _, f := range []struct {
		path, sum string
		size      int64
	}{{c.Script, c.ScriptSHA256, c.ScriptSize}, {c.code(), c.CodeSHA256, c.CodeSize}} {
		if err := verifyFile(f.path, f.sum, f.size); err != nil {
			if errors.Is(err, ErrVerify) {
				c.Forget()
			}
			return 0, err
		}
	}
	return time.Since(t0), nil
}

func verifyFile(path, sum string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %s: %w", ErrVerify, path, err)
		}
		return fmt.Errorf("open the host bytecode: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrVerify, path)
	}
	return checkSum(f, path, size, sum)
}

// Forget removes the manifest, so the next PrepareBytecode builds the cache again (and
// replaces the folder).
func (c *Bytecode) Forget() { _ = os.Remove(c.manifest) }
