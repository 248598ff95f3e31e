package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// ErrSymlink is matched (errors.Is) by every *SymlinkError. It is a case of
// errdefs.ErrRefused: the core refuses to work through the path.
var ErrSymlink = errdefs.New(errdefs.ErrRefused, "a symlink where cwx expects a folder")

// SymlinkError refuses a path inside a data folder on which a symlink (or something that is
// not a folder) sits where the core expects a folder. The core never follows a symlink
// there: a plugin can write the data folder, so a link would let it aim the core's create,
// chmod or remove at any place outside it (ARCHITECTURE.md, “Plugins and trust”).
type SymlinkError struct {
	Path   string // the offending path, absolute
	NotDir bool   // it is a file or device, not a symlink
}

func (e *SymlinkError) Error() string {
	what := "is a symlink"
	if e.NotDir {
		what = "is not a folder"
	}
	return fmt.Sprintf("%s %s; cwx never follows a symlink inside a data folder: remove it (a plugin may have planted it) and run again, cwx then creates the folder", e.Path, what)
}

// Is makes a *SymlinkError match ErrSymlink and errdefs.ErrRefused.
func (e *SymlinkError) Is(target error) bool {
	return target == ErrSymlink || target == errdefs.ErrRefused
}

// OpenDirNoFollow opens base/rel as an [os.Root] without following a symlink anywhere
// below base: base itself (its last component) and each component of rel must be a real
// folder, checked with Lstat and then confirmed on the opened folder (same device and
// inode), so a folder swapped for a link between the two is refused too. With create set,
// missing folders are made with mode perm. Every step goes through an os.Root opened on
// base, so nothing outside base is ever created, even in a race. A missing folder without
// create is reported as fs.ErrNotExist.
func OpenDirNoFollow(base, rel string, create bool, perm fs.FileMode) (*os.Root, error) {
	if create {
		if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
			return nil, err
		}
		if err := os.Mkdir(base, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	fi, err := os.Lstat(base)
	if err != nil {
		return nil, err
	}
	if err := realDir(base, fi); err != nil {
		return nil, err
	}
	cur, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	if err := sameDir(base, cur, fi); err != nil {
		cur.Close()
		return nil, err
	}
	at := base
	for _, comp := range strings.Split(filepath.ToSlash(rel), "/") {
		if comp == "" || comp == "." {
			continue
		}
		if comp == ".." {
			cur.Close()
			return nil, fmt.Errorf("%s: \"..\" in a data folder path", filepath.Join(at, comp))
		}
		at = filepath.Join(at, comp)
		next, err := stepNoFollow(cur, comp, at, create, perm)
		cur.Close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// stepNoFollow opens the folder comp of cur (creating it when asked), refusing a symlink.
func stepNoFollow(cur *os.Root, comp, at string, create bool, perm fs.FileMode) (*os.Root, error) {
	fi, err := cur.Lstat(comp)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err = cur.Mkdir(comp, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = cur.Lstat(comp)
	}
	if err != nil {
		return nil, err
	}
	if err := realDir(at, fi); err != nil {
		return nil, err
	}
	next, err := cur.OpenRoot(comp)
	if err != nil {
		if isEscape(err) {
			return nil, &SymlinkError{Path: at}
		}
		return nil, err
	}
	if err := sameDir(at, next, fi); err != nil {
		next.Close()
		return nil, err
	}
	return next, nil
}

func realDir(at string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &SymlinkError{Path: at}
	case !fi.IsDir():
		return &SymlinkError{Path: at, NotDir: true}
	}
	return nil
}

// sameDir confirms that the folder r opened is the one Lstat saw.
func sameDir(at string, r *os.Root, fi fs.FileInfo) error {
	got, err := r.Stat(".")
	if err != nil {
		return err
	}
	if !os.SameFile(got, fi) {
		return &SymlinkError{Path: at}
	}
	return nil
}
