package bench

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The fixture plugin and the floor script, written out by WriteFixtures.
//
//go:embed fixture
var fixtures embed.FS

// FixtureTool is the one tool of the fixture plugin: `bench_text` answers {"bytes": N}
// with N bytes of text.
const FixtureTool = "bench_text"

// Fixtures are the paths WriteFixtures wrote.
type Fixtures struct {
	Plugin string // the fixture plugin's folder (plugin.json, index.mjs)
	Floor  string // the floor script
	// FetchPlugin is the fetch fixture's folder (`bench_fetch`), FetchDirect the bare
	// script that fetches the same URLs without the proxy.
	FetchPlugin, FetchDirect string
}

// WriteFixtures writes the fixture plugin and the floor script under dir.
func WriteFixtures(dir string) (Fixtures, error) {
	err := fs.WalkDir(fixtures, "fixture", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fixtures.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return Fixtures{}, fmt.Errorf("write the bench fixtures: %w", err)
	}
	root := filepath.Join(dir, "fixture")
	return Fixtures{Plugin: filepath.Join(root, "bench-tool"), Floor: filepath.Join(root, "floor.mjs"),
		FetchPlugin: filepath.Join(root, "bench-fetch"), FetchDirect: filepath.Join(root, "fetch.mjs")}, nil
}
