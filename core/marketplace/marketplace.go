package marketplace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// ManifestPath is where a Claude Code marketplace repository describes itself.
const ManifestPath = ".claude-plugin/marketplace.json"

// Limits on what is read out of a repository.
const (
	MaxManifestBytes = 1 << 20
	MaxFiles         = 20000
	MaxBytes         = 256 << 20
)

// ErrMarketplace is a repository that is not a usable marketplace, or an entry that cannot
// be installed; a case of errdefs.ErrInvalidInput.
var ErrMarketplace = errdefs.New(errdefs.ErrInvalidInput, "not a usable marketplace")

// Manifest is the part of marketplace.json cwx reads.
type Manifest struct {
	Name     string `json:"name"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []Entry `json:"plugins"`
}

// Entry is one plugin the marketplace lists.
type Entry struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Version     string          `json:"version,omitempty"`
	Source      json.RawMessage `json:"source"`
}

// Folder is the entry's folder inside the repository (slash-separated, no leading "./"),
// or an error saying why the entry is not a folder of this repository.
func (e Entry) Folder(pluginRoot string) (string, error) {
	var s string
	if err := json.Unmarshal(e.Source, &s); err != nil {
		var obj struct {
			Source string `json:"source"`
		}
		_ = json.Unmarshal(e.Source, &obj)
		return "", fmt.Errorf("%w: %s's source is %q, not a folder of the marketplace", ErrMarketplace, e.Name, obj.Source)
	}
	if !strings.HasPrefix(s, "./") && pluginRoot != "" {
		s = path.Join(pluginRoot, s)
	}
	c := path.Clean(strings.TrimPrefix(s, "./"))
	if c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) || strings.ContainsAny(c, "\\\x00") {
		return "", fmt.Errorf("%w: %s's source %q leaves the repository", ErrMarketplace, e.Name, s)
	}
	return c, nil
}

// Snapshot is a marketplace read at one commit.
type Snapshot struct {
	Commit   string
	Manifest *Manifest
	tree     *object.Tree
}

// Open reads the repository at dir (a work tree or a bare repository) at its HEAD commit,
// or at commit when it is set. Everything is read from the object store, never from the
// work tree, so what is listed and installed is exactly that commit's content.
func Open(dir, commit string) (*Snapshot, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: false})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMarketplace, dir, err)
	}
	var h plumbing.Hash
	if commit != "" {
		if !plumbing.IsHash(commit) {
			return nil, fmt.Errorf("%w: %q is not a commit hash", ErrMarketplace, commit)
		}
		h = plumbing.NewHash(commit)
	} else {
		ref, err := repo.Head()
		if err != nil {
			return nil, fmt.Errorf("%w: %s has no HEAD commit: %v", ErrMarketplace, dir, err)
		}
		h = ref.Hash()
	}
	c, err := repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("%w: commit %s: %v", ErrMarketplace, h, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("%w: commit %s: %v", ErrMarketplace, h, err)
	}
	f, err := tree.File(ManifestPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %s has no %s at %s", ErrMarketplace, dir, ManifestPath, h)
	}
	if f.Size > MaxManifestBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrMarketplace, ManifestPath, MaxManifestBytes)
	}
	text, err := f.Contents()
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest([]byte(text))
	if err != nil {
		return nil, err
	}
	return &Snapshot{Commit: h.String(), Manifest: m, tree: tree}, nil
}

// ParseManifest decodes marketplace.json and checks names.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMarketplace, ManifestPath, err)
	}
	if !validName(m.Name) {
		return nil, fmt.Errorf("%w: %s: name %q must be lower-case letters, digits and '-'", ErrMarketplace, ManifestPath, m.Name)
	}
	seen := map[string]bool{}
	for _, e := range m.Plugins {
		if !validName(e.Name) || seen[e.Name] {
			return nil, fmt.Errorf("%w: %s: plugin name %q is not valid or not unique", ErrMarketplace, ManifestPath, e.Name)
		}
		seen[e.Name] = true
	}
	return &m, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// Entry returns the named entry.
func (s *Snapshot) Entry(name string) (Entry, error) {
	i := slices.IndexFunc(s.Manifest.Plugins, func(e Entry) bool { return e.Name == name })
	if i < 0 {
		return Entry{}, fmt.Errorf("%w: %s lists no plugin %q", ErrMarketplace, s.Manifest.Name, name)
	}
	return s.Manifest.Plugins[i], nil
}

// Extract writes the entry's folder, as the snapshot's commit has it, into dst (which must
// not exist), through an os.Root so nothing is written outside it. Regular and executable
// files and symlinks are written; submodules are refused.
func (s *Snapshot) Extract(e Entry, dst string) error {
	folder, err := e.Folder(s.Manifest.Metadata.PluginRoot)
	if err != nil {
		return err
	}
	sub := s.tree
	if folder != "." {
		if sub, err = s.tree.Tree(folder); err != nil {
			return fmt.Errorf("%w: %s's folder %s is not in commit %s", ErrMarketplace, e.Name, folder, s.Commit)
		}
	}
	return extractTree(sub, e.Name, dst)
}

// extractTree writes sub into dst (which must not exist) through an os.Root; name is the
// entry's, for errors.
func extractTree(sub *object.Tree, name, dst string) error {
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	var files int
	var bytes int64
	walker := object.NewTreeWalker(sub, true, nil)
	defer walker.Close()
	for {
		p, ent, err := walker.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if files++; files > MaxFiles {
			return fmt.Errorf("%w: %s has more than %d entries", ErrMarketplace, name, MaxFiles)
		}
		c := path.Clean(p)
		if c != p || strings.HasPrefix(c, "../") || c == ".." || path.IsAbs(c) || slices.Contains(strings.Split(c, "/"), ".git") {
			return fmt.Errorf("%w: %s: tree entry %q", ErrMarketplace, name, p)
		}
		rel := filepath.FromSlash(c)
		switch ent.Mode {
		case filemode.Dir:
			if err := root.MkdirAll(rel, 0o755); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable, filemode.Deprecated, filemode.Symlink:
			blob, err := sub.TreeEntryFile(&ent)
			if err != nil {
				return err
			}
			if bytes += blob.Size; bytes > MaxBytes {
				return fmt.Errorf("%w: %s is over %d bytes", ErrMarketplace, name, MaxBytes)
			}
			if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
				return err
			}
			if err := writeBlob(root, rel, blob, ent.Mode); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: %s: %s is a submodule or an unknown kind of entry", ErrMarketplace, name, p)
		}
	}
}

func writeBlob(root *os.Root, rel string, blob *object.File, mode filemode.FileMode) error {
	r, err := blob.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	if mode == filemode.Symlink {
		target, err := io.ReadAll(io.LimitReader(r, 4096))
		if err != nil {
			return err
		}
		return root.Symlink(string(target), rel) // the install judges where it points
	}
	perm := os.FileMode(0o644)
	if mode == filemode.Executable {
		perm = 0o755
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(r, blob.Size)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
