package natives

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// workspace is a call's workspace opened for one call.
type workspace struct {
	dir  string // as the call gave it
	root *os.Root
}

// openWorkspace opens the call's workspace; the caller closes it.
func openWorkspace(dir string) (*workspace, error) {
	if dir == "" {
		return nil, ErrNoWorkspace
	}
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%w: the workspace %q is not an absolute path", ErrNoWorkspace, dir)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: open the workspace: %w", ErrNoWorkspace, err)
	}
	return &workspace{dir: dir, root: r}, nil
}

func (w *workspace) Close() error { return w.root.Close() }

// rel turns a path of a call's input into a slash-separated path relative to the
// workspace ("." for the workspace itself). An absolute path must lie inside the
// workspace; `..` may not leave it. Symbolic links are checked when the path is opened.
func (w *workspace) rel(p string) (string, error) {
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		r, ok := within(w.dir, p)
		if !ok {
			if real, err := filepath.EvalSymlinks(w.dir); err == nil {
				r, ok = within(real, p)
			}
		}
		if !ok {
			return "", fmt.Errorf("%w: %s", ErrOutsideWorkspace, p)
		}
		p = r
	}
	p = filepath.Clean(p)
	if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s", ErrOutsideWorkspace, p)
	}
	return filepath.ToSlash(p), nil
}

// within returns p relative to dir when p lies inside dir.
func within(dir, p string) (string, bool) {
	r, err := filepath.Rel(dir, filepath.Clean(p))
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return r, true
}

// classify turns an error of os.Root about rel into ErrOutsideWorkspace when the path
// resolves outside the workspace (a symbolic link leading out), and keeps it otherwise.
func (w *workspace) classify(rel string, err error) error {
	if err != nil && w.escapes(rel) {
		return fmt.Errorf("%w: %s leads out of it", ErrOutsideWorkspace, rel)
	}
	return err
}

// escapes reports whether rel, with every symbolic link resolved, lies outside the
// workspace.
func (w *workspace) escapes(rel string) bool {
	real, err := filepath.EvalSymlinks(filepath.Join(w.dir, filepath.FromSlash(rel)))
	if err != nil {
		// A dangling link: resolve the link itself, if it is one.
		target, lerr := os.Readlink(filepath.Join(w.dir, filepath.FromSlash(rel)))
		if lerr != nil {
			return false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(filepath.Join(w.dir, filepath.FromSlash(rel))), target)
		}
		real = target
	}
	base, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		base = w.dir
	}
	_, ok := within(base, real)
	return !ok
}

// display is how a result names a workspace-relative path.
func display(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
