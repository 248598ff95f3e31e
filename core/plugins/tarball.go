package plugins

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// isTarball reports whether p looks like a gzip-compressed tarball (by its magic bytes).
func isTarball(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [2]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false, nil
	}
	return magic[0] == 0x1f && magic[1] == 0x8b, nil
}

// extractTarball unpacks a .tgz into dst (an empty directory), refusing absolute or ".."
// entries, device files, hard links, symlinks that leave the package, and anything over
// lim. When every entry sits under one top-level folder (npm's "package/"), that folder
// becomes the root and is returned; otherwise dst is returned.
func extractTarball(source, tgz, dst string, lim Limits) (string, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return "", &RefusalError{Source: source, Reason: "not a gzip-compressed tarball: " + err.Error()}
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	refuse := func(name, reason string) error { return &RefusalError{Source: source, Path: name, Reason: reason} }
	refuseErr := func(name, prefix string, err error) error {
		return &RefusalError{Source: source, Path: name, Reason: prefix + err.Error(), Err: err}
	}
	var files int
	var total int64
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", refuseErr("", "unreadable tarball: ", err)
		}
		name, reason := cleanTarName(hdr.Name)
		if reason != "" {
			return "", refuse(hdr.Name, reason)
		}
		if name == "" {
			continue
		}
		target := filepath.Join(dst, filepath.FromSlash(name))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return "", err
			}
			continue
		case tar.TypeReg: // the reader reports old-style TypeRegA entries as TypeReg
			if total+hdr.Size > lim.Bytes || hdr.Size < 0 {
				return "", refuse("", fmt.Sprintf("the package holds more than %d bytes (%d MiB); cwx installs at most that", lim.Bytes, lim.Bytes>>20))
			}
			total += hdr.Size
			if err := writeTarFile(tr, dst, target, hdr); err != nil {
				return "", refuseErr(hdr.Name, "", err)
			}
		case tar.TypeSymlink:
			if why := symlinkEscapes(name, hdr.Linkname); why != "" {
				return "", refuse(hdr.Name, why)
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return "", err
			}
			if err := os.Symlink(hdr.Linkname, target); err != nil {
				return "", refuseErr(hdr.Name, "", err)
			}
		case tar.TypeLink:
			return "", refuse(hdr.Name, "is a hard link; repack the package without hard links")
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return "", refuse(hdr.Name, "is a device file or pipe; a package holds only files, folders and symlinks inside it")
		case tar.TypeXGlobalHeader, tar.TypeXHeader:
			continue
		default:
			return "", refuse(hdr.Name, fmt.Sprintf("has an unsupported tar entry type %q", hdr.Typeflag))
		}
		files++
		if files > lim.Files {
			return "", refuse("", fmt.Sprintf("the package holds more than %d files; cwx installs at most that many", lim.Files))
		}
	}
	return singleTopDir(dst)
}

// cleanTarName normalizes a tar entry name and returns why it is refused, if it is.
func cleanTarName(name string) (string, string) {
	if strings.ContainsRune(name, 0) || strings.ContainsRune(name, '\\') {
		return "", "has a NUL or backslash in its name"
	}
	if path.IsAbs(name) {
		return "", "is an absolute path; a package's entries must be relative"
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", "contains \"..\"; a package's entries must stay inside it"
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", ""
	}
	return c, ""
}

func writeTarFile(r io.Reader, root, target string, hdr *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if !resolvesInside(root, filepath.Dir(target)) {
		return errors.New("is written through a symlink that leaves the package")
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	// O_EXCL: a name that repeats in the archive, or a symlink planted at it, is refused.
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return errors.New("appears twice in the tarball")
		}
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, hdr.Size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != hdr.Size {
		err = errors.New("is truncated in the tarball")
	}
	return err
}

// singleTopDir returns dst/<d> when dst holds exactly one directory d and nothing else.
func singleTopDir(dst string) (string, error) {
	ents, err := os.ReadDir(dst)
	if err != nil {
		return "", err
	}
	if len(ents) == 1 && ents[0].IsDir() {
		return filepath.Join(dst, ents[0].Name()), nil
	}
	return dst, nil
}

// resolvesInside reports whether p, with every symlink resolved, lies inside root.
func resolvesInside(root, p string) bool {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	r, err := filepath.Rel(realRoot, real)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}
