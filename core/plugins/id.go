package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxIDLength bounds a plugin id (npm's own limit for package names).
const MaxIDLength = 214

// ValidateID checks a plugin id: a manifest name or an npm package name, verbatim.
func ValidateID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("plugin id is empty")
	case len(id) > MaxIDLength:
		return fmt.Errorf("plugin id %q is longer than %d bytes", id, MaxIDLength)
	case strings.HasPrefix(id, "host:"):
		return fmt.Errorf("plugin id %q starts with \"host:\", which names builtin modules only", id)
	case !utf8.ValidString(id):
		return fmt.Errorf("plugin id %q is not valid UTF-8", id)
	}
	for _, r := range id {
		if r < 0x21 || r == 0x7f {
			return fmt.Errorf("plugin id %q contains a space or control character", id)
		}
	}
	return nil
}

// DiskName is the directory name of plugin id on disk: the id lowercased and sanitized to
// [a-z0-9-] (runs of anything else become one '-', trimmed, at most 64 characters), then
// '-' and the first 12 hex digits of sha256(id). Distinct ids get distinct names even when
// they sanitize alike ("@a/b" and "a-b").
func DiskName(id string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(id) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	sum := sha256.Sum256([]byte(id))
	h := hex.EncodeToString(sum[:])[:12]
	if s == "" {
		return h
	}
	return s + "-" + h
}

// Layout names the places a plugin occupies under the cwx home.
type Layout struct{ Home string }

// PluginDir is $CWX_HOME/plugins/<disk name>: every staged version of the plugin.
func (l Layout) PluginDir(id string) string {
	return filepath.Join(l.Home, "plugins", DiskName(id))
}

// StageDir is $CWX_HOME/plugins/<disk name>/<closure sha256>: one staged, read-only copy.
func (l Layout) StageDir(id, closure string) string {
	return filepath.Join(l.PluginDir(id), closure)
}

// DataDir is $CWX_HOME/extension-host/data/plugins/<disk name>: the plugin's writable
// directory, passed as data_dir in ext/activate. It is stable across generations and
// updates and is never deleted by cwx except by `cwx plugin remove --purge-data`.
func (l Layout) DataDir(id string) string {
	return filepath.Join(l.Home, "extension-host", "data", "plugins", DiskName(id))
}

// DataRoot is $CWX_HOME/extension-host/data: the plugin tier's working folder, the one
// place a sandboxed plugin may write.
func (l Layout) DataRoot() string { return filepath.Join(l.Home, "extension-host", "data") }

// dataRel is DataDir(id) relative to DataRoot.
func dataRel(id string) string { return filepath.Join("plugins", DiskName(id)) }

// EnsureDataDir creates DataDir(id) with mode 0700 (parents too) and returns it. Call it
// before each activation; an existing directory is kept as it is, its mode tightened. Every
// step goes through an os.Root on DataRoot and refuses a symlink anywhere below it
// (*SymlinkError): a plugin can write there, so a link planted at data/plugins or at its own
// folder must not make the core create or chmod anything elsewhere.
func (l Layout) EnsureDataDir(id string) (string, error) {
	dir := l.DataDir(id)
	r, err := OpenDirNoFollow(l.DataRoot(), dataRel(id), true, 0o700)
	if err != nil {
		return "", fmt.Errorf("data directory of %s: %w", id, err)
	}
	defer r.Close()
	fi, err := r.Stat(".")
	if err != nil {
		return "", fmt.Errorf("data directory of %s: %w", id, err)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := r.Chmod(".", 0o700); err != nil {
			return "", fmt.Errorf("data directory of %s: %w", id, err)
		}
	}
	return dir, nil
}

// OpenDataDir opens DataDir(id) as an os.Root, refusing a symlink anywhere below DataRoot;
// a missing folder is fs.ErrNotExist.
func (l Layout) OpenDataDir(id string) (*os.Root, error) {
	return OpenDirNoFollow(l.DataRoot(), dataRel(id), false, 0)
}

// purgeDataDir removes DataDir(id) and everything in it through an os.Root on its parent,
// refusing a symlink on the way; a missing folder is nothing to do.
func (l Layout) purgeDataDir(id string) error {
	parent, err := OpenDirNoFollow(l.DataRoot(), "plugins", false, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	return parent.RemoveAll(DiskName(id))
}

// StatePath is $CWX_HOME/state.json.
func (l Layout) StatePath() string { return filepath.Join(l.Home, "state.json") }

// lockPath is the advisory lock guarding state.json (a separate file because the state
// file itself is replaced by rename on every write).
func (l Layout) lockPath() string { return filepath.Join(l.Home, "state.lock") }

// tmpDir is where installs are unpacked before they are staged.
func (l Layout) tmpDir() string { return filepath.Join(l.Home, "plugins", ".tmp") }
