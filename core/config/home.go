package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvHome names the environment variable that overrides the cwx home directory.
const EnvHome = "CWX_HOME"

// FileName is the name of the configuration file inside the home directory.
const FileName = "config.toml"

// Home returns the cwx home directory: $CWX_HOME when set, otherwise ~/.cwx. The directory
// is created with mode 0700 when missing. A relative $CWX_HOME is made absolute.
func Home() (string, error) {
	dir := os.Getenv(EnvHome)
	if dir == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot find the home directory (set %s to choose where cwx keeps its files): %w", EnvHome, err)
		}
		dir = filepath.Join(h, ".cwx")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s=%q: %w", EnvHome, dir, err)
	}
	if err := EnsureDir(abs); err != nil {
		return "", err
	}
	return abs, nil
}

// EnsureDir creates dir (and missing parents) with mode 0700 and checks it is a directory.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	return nil
}

// Path returns the config.toml path inside home.
func Path(home string) string { return filepath.Join(home, FileName) }

// errNotExist reports whether err means the file is absent.
func errNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }
