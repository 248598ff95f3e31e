package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LicensesName is the file written beside the bundle.
const LicensesName = "LICENSES.txt"

// fileMode is the mode of every materialized file, and dirMode of the bundle's folders:
// read-only, and readable by the unprivileged uid the sandboxed runtime drops to when cwx
// runs as root (the bundle is this binary's public code; the extension-host folder above
// them stays private).
const (
	fileMode os.FileMode = 0o444
	dirMode  os.FileMode = 0o755
)

// ModulesDir is the directory, beside the bundle, that holds the builtin module files.
const ModulesDir = "builtin"

// Bundle is an embedded host bundle.
type Bundle struct {
	Name     string   // file name of the bundle, e.g. "cwx-extension-host.mjs"
	Bytes    []byte   // the bundle itself
	Licenses []byte   // third-party notices, written as LICENSES.txt
	Modules  []Module // builtin modules, written as builtin/<id>.mjs
}

// Module is one builtin module's file as the bundle carries it.
type Module struct {
	ID    string
	Bytes []byte
}

// SHA256 is the lower-case hex digest of the module's bytes.
func (m Module) SHA256() string {
	sum := sha256.Sum256(m.Bytes)
	return hex.EncodeToString(sum[:])
}

// ModulePath is where Materialize writes builtin module id of the bundle whose directory is dir.
func ModulePath(dir, id string) string { return filepath.Join(dir, ModulesDir, id+".mjs") }

// SHA256 is the lower-case hex digest of the bundle bytes.
func (b Bundle) SHA256() string {
	sum := sha256.Sum256(b.Bytes)
	return hex.EncodeToString(sum[:])
}

// Materialized says where a bundle lives on disk.
type Materialized struct {
	Dir    string // $CWX_HOME/extension-host/<sha256>
	Path   string // Dir/<Bundle.Name>
	SHA256 string // digest of the bytes at Path, re-read after writing
}

// ErrVerify is wrapped when a file read back after writing does not hold the bytes written.
var ErrVerify = errors.New("materialized file does not match what was written")

// Materialize makes sure home/extension-host/<sha256>/ holds exactly b's bundle and
// licenses, read-only, and returns where. It is safe to call again and from several
// processes at once: each file is staged and renamed atomically.
func Materialize(home string, b Bundle) (Materialized, error) {
	if err := checkName(b.Name); err != nil {
		return Materialized{}, err
	}
	if len(b.Bytes) == 0 {
		return Materialized{}, errors.New("bundle: the bundle is empty")
	}
	sum := b.SHA256()
	dir := filepath.Join(home, "extension-host", sum)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return Materialized{}, fmt.Errorf("bundle: %w", err)
	}
	if err := ensureDir(filepath.Join(home, "extension-host"), 0o700); err != nil {
		return Materialized{}, err
	}
	if err := ensureDir(dir, dirMode); err != nil {
		return Materialized{}, err
	}
	if err := ensureFile(dir, b.Name, b.Bytes); err != nil {
		return Materialized{}, err
	}
	if err := ensureFile(dir, LicensesName, b.Licenses); err != nil {
		return Materialized{}, err
	}
	if len(b.Modules) > 0 {
		if err := ensureDir(filepath.Join(dir, ModulesDir), dirMode); err != nil {
			return Materialized{}, err
		}
		for _, mod := range b.Modules {
			if err := checkModuleID(mod.ID); err != nil {
				return Materialized{}, err
			}
			if err := ensureFile(filepath.Join(dir, ModulesDir), mod.ID+".mjs", mod.Bytes); err != nil {
				return Materialized{}, err
			}
		}
	}
	return Materialized{Dir: dir, Path: filepath.Join(dir, b.Name), SHA256: sum}, nil
}

// Verify checks, without writing anything, that b is materialized intact under home: both
// files regular, 0444 and holding b's bytes. It returns where, or an error saying what is
// wrong (a later Materialize repairs it).
func Verify(home string, b Bundle) (Materialized, error) {
	if err := checkName(b.Name); err != nil {
		return Materialized{}, err
	}
	sum := b.SHA256()
	m := Materialized{Dir: filepath.Join(home, "extension-host", sum), SHA256: sum}
	m.Path = filepath.Join(m.Dir, b.Name)
	if fi, err := os.Lstat(m.Dir); err != nil {
		return Materialized{}, fmt.Errorf("bundle: %w", err)
	} else if !fi.IsDir() {
		return Materialized{}, fmt.Errorf("bundle: %s is not a directory", m.Dir)
	}
	files := []struct {
		path string
		want []byte
	}{{m.Path, b.Bytes}, {filepath.Join(m.Dir, LicensesName), b.Licenses}}
	for _, mod := range b.Modules {
		if err := checkModuleID(mod.ID); err != nil {
			return Materialized{}, err
		}
		files = append(files, struct {
			path string
			want []byte
		}{ModulePath(m.Dir, mod.ID), mod.Bytes})
	}
	for _, f := range files {
		ok, err := holds(f.path, f.want)
		if err != nil {
			return Materialized{}, fmt.Errorf("bundle: %w", err)
		}
		if !ok {
			return Materialized{}, fmt.Errorf("bundle: %s is not a read-only copy of the embedded bytes", f.path)
		}
	}
	return m, nil
}

// ErrModuleDigest is wrapped when a builtin module file does not hash to its pinned digest.
var ErrModuleDigest = errors.New("builtin module file does not match its pinned digest")

// VerifyModule re-reads a materialized module file, without following a symlink, and checks
// that it is a regular read-only file whose bytes hash to sha256 (the pinned digest). The core
// calls it before every activation of a builtin module.
func VerifyModule(path, sha256Hex string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != fileMode {
		return fmt.Errorf("bundle: %s: not a regular read-only file: %w", path, ErrModuleDigest)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha256Hex {
		return fmt.Errorf("bundle: %s hashes to %s, pinned %s: %w", path, got, sha256Hex, ErrModuleDigest)
	}
	return nil
}

func checkModuleID(id string) error {
	if id == "" || strings.ContainsAny(id, `/\.`+"\x00") || strings.HasPrefix(id, "-") {
		return fmt.Errorf("bundle: %q is not a valid builtin module id", id)
	}
	return nil
}

func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") ||
		name == LicensesName || strings.HasPrefix(name, ".staging-") {
		return fmt.Errorf("bundle: %q is not a valid bundle file name", name)
	}
	return nil
}

// ensureDir makes dir a real directory (0700); a symlink or file in its place is removed.
func ensureDir(dir string, mode os.FileMode) error {
	fi, err := os.Lstat(dir)
	switch {
	case err == nil && fi.IsDir() && fi.Mode().Perm() == mode:
		return nil
	case err == nil && fi.IsDir():
		if err := os.Chmod(dir, mode); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		return nil
	case err == nil:
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("bundle: replacing %s (not a directory): %w", dir, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("bundle: %w", err)
	}
	if err := os.Mkdir(dir, mode); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("bundle: creating %s: %w", dir, err)
	}
	if err := os.Chmod(dir, mode); err != nil { // past the umask
		return fmt.Errorf("bundle: %w", err)
	}
	fi, err = os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("bundle: %s is not a directory after creating it", dir)
	}
	return nil
}

// ensureFile leaves dir/name alone when it is a regular 0444 file holding want, and
// otherwise writes it afresh.
func ensureFile(dir, name string, want []byte) error {
	path := filepath.Join(dir, name)
	if ok, err := holds(path, want); err == nil && ok {
		return nil
	}
	if err := writeAtomic(dir, name, want); err != nil {
		return err
	}
	ok, err := holds(path, want)
	if err != nil {
		return fmt.Errorf("bundle: re-reading %s: %w", path, err)
	}
	if !ok {
		return fmt.Errorf("bundle: %s: %w", path, ErrVerify)
	}
	return nil
}

// holds reports whether path is a regular file of mode 0444 whose bytes hash to want's
// digest. It never follows a symlink.
func holds(path string, want []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != fileMode || fi.Size() != int64(len(want)) {
		return false, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, int64(len(want))+1)); err != nil {
		return false, err
	}
	wantSum := sha256.Sum256(want)
	return bytes.Equal(h.Sum(nil), wantSum[:]), nil
}

// writeAtomic stages data in dir, makes it 0444, syncs it and renames it over dir/name.
func writeAtomic(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, ".staging-*")
	if err != nil {
		return fmt.Errorf("bundle: staging %s: %w", name, err)
	}
	staging := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(staging)
		}
	}()
	if _, err = f.Write(data); err == nil {
		if err = f.Chmod(fileMode); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bundle: writing %s: %w", staging, err)
	}
	if err = os.Rename(staging, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("bundle: installing %s: %w", name, err)
	}
	return nil
}
