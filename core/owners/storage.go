package owners

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/cwx-dev/cwx/core/plugins"
)

// MaxStorageBytes bounds a plugin's owner-local storage, `<data_dir>/storage` (ARCHITECTURE.md,
// “Owner-local storage”). The host keeps writes under it; the core checks it again before each
// activation, so a folder grown behind the host's back fails the activation instead of
// loading.
const MaxStorageBytes = 1 << 20

// checkStorage refuses a storage folder that is a symlink or not a directory, or holds more
// than MaxStorageBytes in its files (not counting the temporaries of unfinished writes). A
// missing folder is empty storage. The folder is base/rel/storage, opened through an os.Root
// on base that follows no symlink below it (plugins.OpenDirNoFollow).
func checkStorage(base, rel string) error {
	dir := filepath.Join(base, rel, "storage")
	r, err := plugins.OpenDirNoFollow(base, filepath.Join(rel, "storage"), false, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	defer r.Close()
	f, err := r.Open(".")
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	var total int64
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			continue // a write the host did not finish; the host removes it at its next write
		}
		info, err := e.Info() // an lstat: a symlinked key counts its link, never its target
		if err != nil {
			continue // removed meanwhile
		}
		total += info.Size()
	}
	if total > MaxStorageBytes {
		return fmt.Errorf("storage: %s holds %d bytes; the limit is %d (delete keys to activate the plugin)", dir, total, MaxStorageBytes)
	}
	return nil
}
