package plugins

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/cwx-dev/cwx/core/internal/boundedfile"
)

// The kinds of Origin.
const (
	OriginNpm     = "npm"
	OriginTarball = "tarball"
	OriginFolder  = "folder"
	// OriginMarketplace is a folder of a Claude Code marketplace repository at one commit.
	OriginMarketplace = "marketplace"
)

// Origin says where a plugin's bytes came from: it is what `cwx plugin list` shows and what
// the lock file records so another machine installs the same bytes.
type Origin struct {
	Type string `json:"type"` // OriginNpm, OriginTarball or OriginFolder
	// For OriginNpm: the package name and version resolved, the query asked for ("^1.2",
	// "latest"), the registry's base URL and the tarball's URL.
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
	Query    string `json:"query,omitempty"`
	Registry string `json:"registry,omitempty"`
	Tarball  string `json:"tarball_url,omitempty"`
	// Path is the folder or tarball installed from (OriginFolder, OriginTarball).
	Path string `json:"local_path,omitempty"`
	// Integrity is the tarball's "sha512-<base64>" (OriginNpm, OriginTarball).
	Integrity string `json:"integrity,omitempty"`
	// Deprecated is the registry's deprecation message for that version, if any.
	Deprecated string `json:"deprecated,omitempty"`
	// For OriginMarketplace: the marketplace's name, the entry's name (Name), the
	// repository it was added from (Path), the commit read and the entry's folder.
	Marketplace string `json:"marketplace,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Folder      string `json:"folder,omitempty"`
	// For an OriginMarketplace entry whose source is a git repository of its own: the
	// repository's URL and the commit of it installed (Folder is then unset).
	Repository       string `json:"repository,omitempty"`
	RepositoryCommit string `json:"repository_commit,omitempty"`
}

// String is the short form `cwx plugin list` prints: npm:<name>@<version>, or the path.
func (o *Origin) String() string {
	if o == nil {
		return ""
	}
	switch o.Type {
	case OriginNpm:
		return "npm:" + o.Name + "@" + o.Version
	case OriginMarketplace:
		c := short(o.Commit)
		if o.RepositoryCommit != "" {
			return o.Name + "@" + o.Marketplace + " (commit " + c + ", repository commit " + short(o.RepositoryCommit) + ")"
		}
		return o.Name + "@" + o.Marketplace + " (commit " + c + ")"
	}
	return o.Path
}

// TarballIntegrity is the "sha512-<base64>" of the file at p.
func TarballIntegrity(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// LockVersion is the schema version of plugins.lock.
const LockVersion = 1

// Lock is the content of $CWX_HOME/plugins.lock: for each installed plugin its version,
// closure hash and origin. The store rewrites it from state.json whenever what is
// installed changes; `cwx plugin install --from-lock` reads one written elsewhere.
type Lock struct {
	Version int                     `json:"lock_version"`
	Plugins map[string]LockedPlugin `json:"plugins"`
}

// LockedPlugin is one plugin in a Lock.
type LockedPlugin struct {
	Version string  `json:"version"`
	Closure string  `json:"closure_sha256"`
	Origin  *Origin `json:"origin"`
}

// IDs is the lock's ids, sorted.
func (l *Lock) IDs() []string {
	ids := make([]string, 0, len(l.Plugins))
	for id := range l.Plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// LockPath is $CWX_HOME/plugins.lock.
func (l Layout) LockPath() string { return filepath.Join(l.Home, "plugins.lock") }

func lockOf(st *State) *Lock {
	lk := &Lock{Version: LockVersion, Plugins: map[string]LockedPlugin{}}
	for id, r := range st.Plugins {
		o := r.Origin
		if o == nil {
			o = &Origin{Type: OriginFolder, Path: r.Source}
		}
		lk.Plugins[id] = LockedPlugin{Version: r.Version, Closure: r.Closure, Origin: o}
	}
	return lk
}

// writeLock replaces the lock file the way the state file is replaced.
func writeLock(p string, st *State) error {
	data, err := json.MarshalIndent(lockOf(st), "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(p, append(data, '\n'))
}

// MaxLockBytes caps a lock file read.
const MaxLockBytes = 4 << 20

// ReadLock reads and checks a lock file.
func ReadLock(p string) (*Lock, error) {
	data, err := boundedfile.Read(p, MaxLockBytes, true)
	if err != nil {
		return nil, fmt.Errorf("read lock file: %w", err)
	}
	var lk Lock
	if err := json.Unmarshal(data, &lk); err != nil {
		return nil, &RefusalError{Source: p, Reason: fmt.Sprintf("is not a plugins.lock: %v", err)}
	}
	if lk.Version != LockVersion {
		return nil, &RefusalError{Source: p, Reason: fmt.Sprintf("has lock_version %d; this cwx reads %d", lk.Version, LockVersion)}
	}
	for id, e := range lk.Plugins {
		if err := ValidateID(id); err != nil {
			return nil, &RefusalError{Source: p, Reason: err.Error()}
		}
		if !isSHA256(e.Closure) || e.Origin == nil {
			return nil, &RefusalError{Source: p, Reason: fmt.Sprintf("%s: needs a closure_sha256 and an origin", id)}
		}
		switch e.Origin.Type {
		case OriginNpm, OriginTarball, OriginFolder, OriginMarketplace:
		default:
			return nil, &RefusalError{Source: p, Reason: fmt.Sprintf("%s: origin type %q is not npm, tarball, folder or marketplace", id, e.Origin.Type)}
		}
	}
	return &lk, nil
}

// TmpDir is the private folder downloads and staging work in ($CWX_HOME/plugins/.tmp).
func (l Layout) TmpDir() string { return l.tmpDir() }
