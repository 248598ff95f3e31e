package owners

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/cwx-dev/cwx/core/runtime"
)

// When cwx runs as root the sandboxed runtime runs as the sandbox uid (runtime.SandboxUser),
// which must own the data folders it writes and be able to read the staged plugins
// (ARCHITECTURE.md, “Sandbox”). Everything below goes through an os.Root on the folder it
// changes, so a symlink a plugin planted in its data folder is never followed out of it.

// sandboxAccess prepares p's trees for p.User before a launch: the data tree becomes the
// user's, and the plugins folder and each plugin's folder are opened to its group.
func sandboxAccess(p *runtime.Profile) error {
	if p.User == nil {
		return nil
	}
	if err := ownTree(p.Data, int(p.User.UID), int(p.User.GID)); err != nil {
		return fmt.Errorf("give the plugin tier's data folder to the sandbox uid %d: %w", p.User.UID, err)
	}
	// bubblewrap changes into it as root without capabilities, before the drop: it may
	// cross the folder, not list it (each plugin's folder inside stays 0700).
	if err := os.Chmod(p.Data, 0o711); err != nil {
		return fmt.Errorf("open the plugin tier's data folder to bubblewrap: %w", err)
	}
	if err := sharePlugins(p.Plugins, "", int(p.User.GID)); err != nil {
		return fmt.Errorf("open the plugins folder to the sandbox gid %d: %w", p.User.GID, err)
	}
	return nil
}

// pluginAccess is sandboxAccess for one plugin about to be activated: its data folder (just
// ensured) and its folder of staged copies, which may be newer than the tier's launch. A
// plugin with a host of its own (own) works in its data folder, which bubblewrap changes
// into as root without capabilities: it stays 0711 like the tier's.
func pluginAccess(st SandboxStatus, dataDir, pluginDir string, own bool) error {
	if !st.Active || st.User == nil {
		return nil
	}
	u := st.User
	// The folder above (data/plugins) too, which the first plugin's folder may have made.
	if err := ownOne(filepath.Dir(filepath.Dir(dataDir)), filepath.Base(filepath.Dir(dataDir)), int(u.UID), int(u.GID)); err != nil {
		return fmt.Errorf("give %s to the sandbox uid %d: %w", filepath.Dir(dataDir), u.UID, err)
	}
	if err := ownTree(dataDir, int(u.UID), int(u.GID)); err != nil {
		return fmt.Errorf("give %s to the sandbox uid %d: %w", dataDir, u.UID, err)
	}
	if err := sharePlugins(filepath.Dir(pluginDir), filepath.Base(pluginDir), int(u.GID)); err != nil {
		return fmt.Errorf("open %s to the sandbox gid %d: %w", pluginDir, u.GID, err)
	}
	if own {
		if err := os.Chmod(dataDir, 0o711); err != nil {
			return fmt.Errorf("open %s to bubblewrap: %w", dataDir, err)
		}
	}
	return nil
}

// ownTree gives dir and everything in it to uid and gid, symlinks included (the link, not
// its target), skipping what is already theirs.
func ownTree(dir string, uid, gid int) error {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer root.Close()
	return fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid && int(st.Gid) == gid {
			return nil
		}
		return root.Lchown(name, uid, gid)
	})
}

// ownOne gives dir/name (not followed if a symlink) to uid and gid.
func ownOne(dir, name string, uid, gid int) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.Lchown(name, uid, gid)
}

// sharePlugins gives the plugins folder and its plugin folders (only the one named when
// only is not "") group gid with mode 0750, so the sandbox uid can reach the staged copies
// (read-only, 0555 and 0444, already readable). The installer's staging folder .tmp stays
// private.
func sharePlugins(dir, only string, gid int) error {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer root.Close()
	names := []string{only}
	if only == "" {
		entries, err := fs.ReadDir(root.FS(), ".")
		if err != nil {
			return err
		}
		names = names[:0]
		for _, e := range entries {
			if e.IsDir() && e.Name() != ".tmp" {
				names = append(names, e.Name())
			}
		}
	}
	for _, n := range append([]string{"."}, names...) {
		fi, err := root.Lstat(n)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			continue
		}
		if err := root.Lchown(n, -1, gid); err != nil {
			return err
		}
		if err := root.Chmod(n, 0o750); err != nil {
			return err
		}
	}
	return nil
}
