package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
	"github.com/cwx-dev/cwx/core/runtime"
)

// ErrVerify is wrapped by the error of Open, Verify or Bytecode.Verify when a file on disk is
// not the one recorded.
var ErrVerify = errors.New("the host's startup file does not match its record")

// BuildTimeout bounds one snapshot build.
const BuildTimeout = 60 * time.Second

// maxManifest bounds a manifest read.
const maxManifest = 64 << 10

// Dir is the folder of the snapshots under home.
func Dir(home string) string { return filepath.Join(home, "cache", "snapshots") }

// Options say what to build a snapshot of, and with what.
type Options struct {
	Home        string       // $CWX_HOME
	Kind        runtime.Kind // Node (a startup snapshot) or Bun (a bytecode cache)
	Runtime     string       // the runtime binary
	Version     string       // its version
	BuildFlags  []string     // passed to Node's build (Node's feature switches)
	RunFlags    []string     // the exact flags of every run, part of the key
	Entry       []byte       // the snapshot entry script
	EntrySHA256 string       // its sha256, what host/hello reports under the snapshot
}

// Blob is one built snapshot.
type Blob struct {
	Path        string // the blob file
	Key         string // hex key
	SHA256      string // recorded sha256 of the blob
	Size        int64
	EntrySHA256 string // the entry's sha256, reported in host/hello under the snapshot
	Built       bool   // built by this Prepare (not found)
	manifest    string
}

type manifest struct {
	Key         string   `json:"key"`
	SHA256      string   `json:"sha256"`
	Size        int64    `json:"size"`
	EntrySHA256 string   `json:"entry_sha256"`
	Node        string   `json:"node"`
	Version     string   `json:"version"`
	BuildFlags  []string `json:"build_flags"`
	RunFlags    []string `json:"run_flags"`
}

// Key is the snapshot's key for o, or ok false when the runtime cannot be identified.
func Key(o Options) (string, error) {
	id, err := probecache.Identity(o.Runtime)
	if err != nil {
		return "", fmt.Errorf("identify %s: %w", o.Runtime, err)
	}
	h := sha256.New()
	for _, part := range []string{"cwx-host-snapshot-1", id, o.Version, o.EntrySHA256,
		strings.Join(o.BuildFlags, "\x00"), strings.Join(o.RunFlags, "\x00")} {
		h.Write([]byte(part))
		h.Write([]byte{0xff})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Prepare returns the snapshot for o, building it when there is none yet.
func Prepare(ctx context.Context, o Options) (*Blob, error) {
	key, err := Key(o)
	if err != nil {
		return nil, err
	}
	dir := Dir(o.Home)
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	b := &Blob{Path: filepath.Join(dir, key+".blob"), Key: key, manifest: filepath.Join(dir, key+".json"), EntrySHA256: o.EntrySHA256}
	if b.load() == nil {
		return b, nil
	}
	unlock, err := lock(filepath.Join(dir, key+".lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	if b.load() == nil { // another core built it while this one waited
		return b, nil
	}
	if err := b.build(ctx, o, dir); err != nil {
		return nil, err
	}
	b.Built = true
	return b, nil
}

// Find returns the snapshot for o when one has been built, without building it.
func Find(o Options) (*Blob, error) {
	key, err := Key(o)
	if err != nil {
		return nil, err
	}
	dir := Dir(o.Home)
	b := &Blob{Path: filepath.Join(dir, key+".blob"), Key: key, manifest: filepath.Join(dir, key+".json"), EntrySHA256: o.EntrySHA256}
	if err := b.load(); err != nil {
		return nil, err
	}
	return b, nil
}

// load reads the manifest and checks the blob's size; an error means there is no usable one.
func (b *Blob) load() error {
	var m manifest
	if err := readManifest(b.manifest, &m); err != nil {
		return err
	}
	if m.Key != b.Key || len(m.SHA256) != 64 || m.EntrySHA256 != b.EntrySHA256 {
		return fmt.Errorf("%s: not the manifest of snapshot %s", b.manifest, b.Key)
	}
	fi, err := os.Lstat(b.Path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Size() != m.Size {
		return fmt.Errorf("%s: %w (size %d, recorded %d)", b.Path, ErrVerify, fi.Size(), m.Size)
	}
	b.SHA256, b.Size = m.SHA256, m.Size
	return nil
}

// build runs Node's snapshot build into a staging file and puts it and its manifest in place.
func (b *Blob) build(ctx context.Context, o Options, dir string) error {
	entry := filepath.Join(dir, "entry-"+o.EntrySHA256+".cjs")
	if err := writeVerified(entry, o.Entry, o.EntrySHA256); err != nil {
		return err
	}
	stage := b.Path + ".building"
	_ = os.Remove(stage)
	ctx, cancel := context.WithTimeout(ctx, BuildTimeout)
	defer cancel()
	args := append(append([]string(nil), o.BuildFlags...), "--snapshot-blob", stage, "--build-snapshot", entry)
	cmd := exec.CommandContext(ctx, o.Runtime, args...)
	cmd.Env = []string{"NODE_OPTIONS=", "PATH=/usr/bin:/bin"}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_ = os.Remove(stage)
		return fmt.Errorf("build the host snapshot with %s: %w: %s", o.Runtime, err, lastLine(out.String()))
	}
	sum, size, err := hashFile(stage)
	if err != nil {
		return err
	}
	if err := os.Chmod(stage, 0o444); err != nil {
		return err
	}
	if err := os.Rename(stage, b.Path); err != nil {
		return err
	}
	m := manifest{Key: b.Key, SHA256: sum, Size: size, EntrySHA256: o.EntrySHA256, Node: o.Runtime, Version: o.Version,
		BuildFlags: o.BuildFlags, RunFlags: o.RunFlags}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicWrite(b.manifest, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	b.SHA256, b.Size = sum, size
	return nil
}

// Open opens the blob for one start: no symlink followed, a regular file of the recorded
// size. The caller runs Verify on it before any runtime is told to read it, and closes it.
func (b *Blob) Open() (*os.File, error) {
	f, err := os.OpenFile(b.Path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open the host snapshot: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || fi.Size() != b.Size) {
		err = fmt.Errorf("%w: %s is %d bytes, recorded %d", ErrVerify, b.Path, fi.Size(), b.Size)
	}
	if err != nil {
		f.Close()
		if errors.Is(err, ErrVerify) {
			b.Forget()
		}
		return nil, err
	}
	return f, nil
}

// Verify hashes what f (from Open) holds, at its own offsets, against the recorded sha256,
// and returns how long that took. A mismatch wraps ErrVerify and forgets the blob.
func (b *Blob) Verify(f *os.File) (time.Duration, error) {
	t0 := time.Now()
	if err := checkSum(f, b.Path, b.Size, b.SHA256); err != nil {
		if errors.Is(err, ErrVerify) {
			b.Forget()
		}
		return 0, err
	}
	return time.Since(t0), nil
}

// checkSum hashes what f (path, for the error) holds, at its own offsets, against size and
// sum; a mismatch wraps ErrVerify.
func checkSum(f *os.File, path string, size int64, sum string) error {
	h := sha256.New()
	n, err := io.Copy(h, io.NewSectionReader(f, 0, size+1))
	switch {
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case n != size:
		return fmt.Errorf("%w: %s holds %d bytes, recorded %d", ErrVerify, path, n, size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("%w: %s has sha256 %s, recorded %s", ErrVerify, path, got, sum)
	}
	return nil
}

// Forget removes the blob and its manifest, so the next Prepare builds it again.
func (b *Blob) Forget() {
	_ = os.Remove(b.manifest)
	_ = os.Remove(b.Path)
}

// readManifest decodes the manifest at path into v: no symlink followed, at most maxManifest
// bytes. A manifest that does not decode is an error naming it.
func readManifest(path string, v any) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxManifest))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the snapshot folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is not a folder of this user: remove it and start again", dir)
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the host snapshot: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the host snapshot: %w", err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// writeVerified writes data to path read-only unless it is already there with that digest.
func writeVerified(path string, data []byte, digest string) error {
	if sum, _, err := hashFile(path); err == nil && sum == digest {
		return nil
	}
	return atomicWrite(path, data, 0o444)
}

func atomicWrite(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		_ = os.Remove(name)
	}
	return err
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}
