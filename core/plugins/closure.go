package plugins

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// Install limits (ARCHITECTURE.md, “Plugins and trust”).
const (
	MaxFiles = 10_000
	MaxBytes = 256 << 20
)

// Limits bounds one package; tests shrink them.
type Limits struct {
	Files int   // most entries (regular files, symlinks and folders) in the package
	Bytes int64 // most bytes of file content in the package
}

// DefaultLimits are MaxFiles and MaxBytes.
var DefaultLimits = Limits{Files: MaxFiles, Bytes: MaxBytes}

// ErrRefused is matched (errors.Is) by every *RefusalError. It is errdefs.ErrRefused, the
// kind a refused registration matches too.
var ErrRefused = errdefs.ErrRefused

// RefusalError says why a package cannot be installed.
type RefusalError struct {
	Source string // the folder or tarball given to install
	Path   string // the offending path inside the package, "" for the package as a whole
	Reason string
	Err    error // what Reason reports, when an error caused the refusal (a tar or file error)
}

func (e *RefusalError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: refused: %s", e.Source, e.Reason)
	}
	return fmt.Sprintf("%s: refused: %s: %s", e.Source, e.Path, e.Reason)
}

// Is makes every *RefusalError match ErrRefused.
func (e *RefusalError) Is(target error) bool { return target == ErrRefused }

// Unwrap keeps the error that caused the refusal reachable.
func (e *RefusalError) Unwrap() error { return e.Err }

// treeFile is one file of a package tree.
type treeFile struct {
	Rel    string      // slash-separated path relative to the root
	Mode   fs.FileMode // regular file or symlink
	Size   int64       // content bytes (link target length for a symlink)
	Target string      // symlink target
	stamp  stamp       // what the verification cache compares
}

// scanTree lists root's files in closure order, refusing what a package may not contain:
// device files, pipes and sockets, symlinks that leave the package, and more than lim
// (folders count as entries).
func scanTree(source, root string, lim Limits) ([]treeFile, error) {
	var files []treeFile
	var total int64
	var entries int
	refuse := func(rel, reason string) error { return &RefusalError{Source: source, Path: rel, Reason: reason} }
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(r)
		if entries++; entries > lim.Files {
			return refuse("", tooManyEntries(lim))
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch m := fi.Mode(); {
		case m.IsDir():
			return nil
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if reason := symlinkEscapes(rel, target); reason != "" {
				return refuse(rel, reason)
			}
			files = append(files, treeFile{Rel: rel, Mode: fs.ModeSymlink, Size: int64(len(target)), Target: target, stamp: statStamp(fi, target)})
		case m.IsRegular():
			total += fi.Size()
			if total > lim.Bytes {
				return refuse("", tooManyBytes(lim))
			}
			files = append(files, treeFile{Rel: rel, Mode: m.Perm(), Size: fi.Size(), stamp: statStamp(fi, "")})
		default:
			return refuse(rel, fmt.Sprintf("is a device file, pipe or socket (%v); a package holds only files, folders and symlinks inside it", m.Type()))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := checkResolvedLinks(source, root, files); err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	return files, nil
}

// symlinkEscapes returns why a symlink at rel pointing to target leaves the package, or "".
func symlinkEscapes(rel, target string) string {
	if target == "" {
		return "is an empty symlink"
	}
	if path.IsAbs(target) || filepath.IsAbs(target) {
		return fmt.Sprintf("is a symlink to the absolute path %q, outside the package", target)
	}
	joined := path.Clean(path.Join(path.Dir(rel), filepath.ToSlash(target)))
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return fmt.Sprintf("is a symlink to %q, which leaves the package", target)
	}
	return ""
}

// checkResolvedLinks resolves every symlink on disk (a chain of links can leave the
// package although each one looks local) and refuses any that resolves outside root.
func checkResolvedLinks(source, root string, files []treeFile) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.Mode&fs.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(f.Rel)))
		if err != nil {
			continue // dangling inside the package: harmless, it resolves to nothing
		}
		if r, err := filepath.Rel(realRoot, real); err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return &RefusalError{Source: source, Path: f.Rel, Reason: fmt.Sprintf("is a symlink to %q, which resolves outside the package", f.Target)}
		}
	}
	return nil
}

// Closure is the identity of a package's bytes.
type Closure struct {
	SHA256 string // hex
	Files  int    // regular files and symlinks
	Bytes  int64  // content bytes of regular files
}

// closureMagic starts every closure hash; bump the version if the order or framing changes.
const closureMagic = "cwx-closure-v1\x00"

// HashTree computes the closure hash of the package rooted at root, every file included
// (node_modules too). The order is documented in doc.go: files sorted by their
// slash-separated relative path in byte order; for each, one kind byte ('f' regular file,
// 'l' symlink), the path, a NUL, the content length as 8 bytes big-endian, then the content
// (the link target for a symlink). The whole is prefixed with "cwx-closure-v1\x00".
// Modes and times are not hashed.
func HashTree(root string, lim Limits) (Closure, error) {
	files, err := scanTree(root, root, lim)
	if err != nil {
		return Closure{}, err
	}
	return hashFiles(root, files)
}

func hashFiles(root string, files []treeFile) (Closure, error) {
	h := sha256.New()
	io.WriteString(h, closureMagic)
	var c Closure
	var n [8]byte
	for _, f := range files {
		kind := byte('f')
		if f.Mode&fs.ModeSymlink != 0 {
			kind = 'l'
		}
		h.Write([]byte{kind})
		io.WriteString(h, f.Rel)
		h.Write([]byte{0})
		c.Files++
		if kind == 'l' {
			binary.BigEndian.PutUint64(n[:], uint64(len(f.Target)))
			h.Write(n[:])
			io.WriteString(h, f.Target)
			continue
		}
		if err := hashFileInto(h, filepath.Join(root, filepath.FromSlash(f.Rel)), f.Size, n[:]); err != nil {
			return Closure{}, err
		}
		c.Bytes += f.Size
	}
	c.SHA256 = hex.EncodeToString(h.Sum(nil))
	return c, nil
}

func hashFileInto(h io.Writer, p string, size int64, n []byte) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	binary.BigEndian.PutUint64(n, uint64(size))
	h.Write(n)
	got, err := io.Copy(h, io.LimitReader(f, size+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	if got != size {
		return fmt.Errorf("%s changed size while being hashed", p)
	}
	return nil
}

// FileSHA256 returns the hex sha256 of one file's bytes.
func FileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
