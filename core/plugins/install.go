package plugins

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// InstallResult says what Install did.
type InstallResult struct {
	ID        string
	Version   string
	Closure   string
	StageDir  string
	Files     int
	Bytes     int64
	Unchanged bool // the same bytes were already installed under this id
	Updated   bool // different bytes replaced an earlier version: it needs review again
}

// Install stages a read-only copy of the plugin at src (a folder or a .tgz) and records it
// disabled and untrusted. Nothing is fetched and no script runs. Different bytes under an
// installed id become the new version; its old receipt no longer matches, so it stops
// until reviewed and trusted again.
func (s *Store) Install(src string) (*InstallResult, error) {
	return s.InstallWith(src, InstallOptions{})
}

// InstallOptions are the optional inputs of [Store.InstallWith].
type InstallOptions struct {
	// Origin is recorded as the plugin's origin; nil records the folder or tarball (with
	// the tarball's sha512 integrity).
	Origin *Origin
	// Label names the source in refusals instead of src (e.g. npm:<name>@<version> for a
	// downloaded tarball).
	Label string
	// Closure, when set, is the closure hash the staged copy must have (a lock's); other
	// bytes are refused before anything is recorded.
	Closure string
	// StageOnly stages the copy and returns without recording it (an update's review).
	StageOnly bool
}

// InstallWith is Install with options.
func (s *Store) InstallWith(src string, opt InstallOptions) (*InstallResult, error) {
	label := src
	if opt.Label != "" {
		label = opt.Label
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // a symlink to the package folder installs the folder
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("install %s: %w", label, err)
	}
	origin := opt.Origin
	if origin == nil {
		origin = &Origin{Type: OriginFolder, Path: abs}
		if !fi.IsDir() {
			sri, err := TarballIntegrity(abs)
			if err != nil {
				return nil, err
			}
			origin = &Origin{Type: OriginTarball, Path: abs, Integrity: sri}
		}
	}
	src = label
	if err := os.MkdirAll(s.layout.tmpDir(), 0o700); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(s.layout.tmpDir(), "install-*")
	if err != nil {
		return nil, err
	}
	defer removeTree(work)

	root := abs
	if !fi.IsDir() {
		tgz, err := isTarball(abs)
		if err != nil {
			return nil, err
		}
		if !tgz {
			return nil, &RefusalError{Source: src, Reason: "is neither a folder nor a gzip-compressed tarball (.tgz)"}
		}
		unpack := filepath.Join(work, "unpack")
		if err := os.Mkdir(unpack, 0o700); err != nil {
			return nil, err
		}
		if root, err = extractTarball(src, abs, unpack, s.limits); err != nil {
			return nil, err
		}
	}
	m, err := s.checkPackage(src, root)
	if err != nil {
		return nil, err
	}
	files, err := scanTree(src, root, s.limits)
	if err != nil {
		return nil, err
	}
	staged := filepath.Join(work, "stage")
	if err := copyTree(root, staged, files); err != nil {
		return nil, fmt.Errorf("stage %s: %w", src, err)
	}
	clo, err := HashTree(staged, s.limits)
	if err != nil {
		return nil, err
	}
	if opt.Closure != "" && opt.Closure != clo.SHA256 {
		return nil, &RefusalError{Source: src, Reason: fmt.Sprintf("has closure sha256:%s, not the sha256:%s the lock records; these are not the same bytes", clo.SHA256, opt.Closure)}
	}
	entries, err := hashEntries(staged, m.Entries)
	if err != nil {
		return nil, err
	}
	dest := s.layout.StageDir(m.ID, clo.SHA256)
	if err := placeStage(staged, dest, clo.SHA256, s.limits); err != nil {
		return nil, err
	}
	res := &InstallResult{ID: m.ID, Version: m.Version, Closure: clo.SHA256, StageDir: dest, Files: clo.Files, Bytes: clo.Bytes}
	if opt.StageOnly {
		return res, nil
	}
	err = s.update(func(st *State) (bool, error) {
		old := st.Plugins[m.ID]
		if old != nil && old.Closure == clo.SHA256 {
			res.Unchanged = true
			if old.Origin == nil || *old.Origin != *origin {
				old.Origin, old.Source = origin, sourceOf(origin)
				return true, nil // the same bytes from another origin: the lock follows
			}
			return false, errNoChange
		}
		rec := &Record{
			ID: m.ID, Version: m.Version, Description: m.Description, Kind: m.Kind, Source: sourceOf(origin), Origin: origin,
			Closure: clo.SHA256, Files: clo.Files, Bytes: clo.Bytes, Entries: entries,
			InstalledAt: s.now().UTC(),
		}
		if old != nil {
			res.Updated = true
			rec.Enabled, rec.Trust, rec.Diagnostics = old.Enabled, old.Trust, old.Diagnostics
			rec.FirstTrustedAt, rec.Claims = old.FirstTrustedAt, old.Claims
		}
		st.Plugins[m.ID] = rec
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkPackage reads the manifest and applies the install refusals that need it.
func (s *Store) checkPackage(src, root string) (*Manifest, error) {
	m, err := ReadManifest(root)
	if err != nil {
		return nil, relabel(err, root, src)
	}
	if err := ValidateID(m.ID); err != nil {
		return nil, &RefusalError{Source: src, Reason: err.Error()}
	}
	if len(m.InstallScripts) > 0 {
		return nil, &RefusalError{Source: src, Path: "package.json", Reason: fmt.Sprintf("declares install scripts (%s); cwx never runs install scripts: ship the built files instead", strings.Join(m.InstallScripts, ", "))}
	}
	rep := checkDeps(root, m, s.provided)
	if len(rep.Missing) > 0 {
		return nil, &RefusalError{Source: src, Reason: fmt.Sprintf("runtime dependencies are neither bundled in its node_modules nor provided by cwx: %s (install never fetches: bundle them, e.g. with a bundler or bundleDependencies)", strings.Join(rep.Missing, ", "))}
	}
	return m, nil
}

// relabel rewrites a manifest error's temporary path into the path the user gave.
func relabel(err error, root, src string) error {
	var me *ManifestError
	if errors.As(err, &me) {
		c := *me
		if rel, rerr := filepath.Rel(root, me.File); rerr == nil && !strings.HasPrefix(rel, "..") {
			c.File = filepath.Join(src, rel)
			if rel == "." {
				c.File = src
			}
		}
		return &c
	}
	return err
}

func hashEntries(root string, paths []string) ([]Entry, error) {
	out := make([]Entry, 0, len(paths))
	for _, p := range paths {
		sum, err := FileSHA256(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{Path: p, SHA256: sum})
	}
	return out, nil
}

// copyTree copies files (from scanTree) from src to dst, which must not exist. Both ends go
// through an os.Root, so neither a read nor a write follows a symlink out of its tree.
func copyTree(src, dst string, files []treeFile) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	from, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer from.Close()
	to, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer to.Close()
	for _, f := range files {
		rel := filepath.FromSlash(f.Rel)
		if err := to.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return err
		}
		if f.Mode&fs.ModeSymlink != 0 {
			if err := to.Symlink(f.Target, rel); err != nil {
				return err
			}
			continue
		}
		if err := copyFile(from, to, rel, f); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to *os.Root, rel string, f treeFile) error {
	in, err := from.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := to.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(in, f.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != f.Size {
		err = fmt.Errorf("%s changed while being copied", f.Rel)
	}
	return err
}

// placeStage makes staged read-only and moves it to dest. When dest already exists with
// the same closure it is kept; a damaged dest is replaced.
func placeStage(staged, dest, closure string, lim Limits) error {
	if err := makeReadOnly(staged); err != nil {
		return err
	}
	if _, err := os.Lstat(dest); err == nil {
		if c, err := HashTree(dest, lim); err == nil && c.SHA256 == closure {
			return nil
		}
		if err := removeTree(dest); err != nil {
			return fmt.Errorf("replace damaged %s: %w", dest, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return err
	}
	// The kernel renames a folder only while it is writable (its ".." entry changes), and
	// only root passes that check on a read-only one: the top folder stays writable until it
	// is in place.
	if err := os.Chmod(staged, 0o755); err != nil {
		return err
	}
	if err := os.Rename(staged, dest); err != nil {
		// A concurrent install of the same bytes may have won the rename.
		if c, herr := HashTree(dest, lim); herr == nil && c.SHA256 == closure {
			return nil
		}
		return fmt.Errorf("place %s: %w", dest, err)
	}
	return os.Chmod(dest, 0o555)
}

// makeReadOnly sets files to 0444 (0555 when executable) and folders to 0555.
func makeReadOnly(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			dirs = append(dirs, p)
		case d.Type().IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			mode := os.FileMode(0o444)
			if fi.Mode()&0o100 != 0 {
				mode = 0o555
			}
			return os.Chmod(p, mode)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o555); err != nil {
			return err
		}
	}
	return nil
}

// removeTree removes root even when read-only folders are inside it.
func removeTree(root string) error {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(root)
}

// Remove deletes id's record and staged copies. Its data directory is kept (it is the
// plugin's own data, stable across reinstalls) unless purgeData is set.
func (s *Store) Remove(id string, purgeData bool) error {
	err := s.update(func(st *State) (bool, error) {
		if _, ok := st.Plugins[id]; !ok {
			return false, notInstalled(id)
		}
		delete(st.Plugins, id)
		return true, nil
	})
	if err != nil {
		return err
	}
	if err := removeTree(s.layout.PluginDir(id)); err != nil {
		return fmt.Errorf("remove staged copies of %s: %w", id, err)
	}
	if purgeData {
		if err := s.layout.purgeDataDir(id); err != nil {
			return fmt.Errorf("remove data of %s: %w", id, err)
		}
	}
	return nil
}

func sourceOf(o *Origin) string { return o.String() }
