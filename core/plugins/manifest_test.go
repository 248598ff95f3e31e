package plugins

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manifestDir is testdata/manifests at the repository root, as a relative path so that
// error messages in goldens do not depend on where the repository lives.
const manifestDir = "../../testdata/manifests"

// TestManifestGoldens reads every folder of testdata/manifests: valid-* must parse to the
// manifest in <name>.golden, invalid-* must fail with the error text in <name>.golden.
// CWX_UPDATE_GOLDEN=1 re-records them.
func TestManifestGoldens(t *testing.T) {
	ents, err := os.ReadDir(manifestDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		n++
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			m, err := ReadManifest(filepath.Join(manifestDir, name))
			var got string
			switch {
			case strings.HasPrefix(name, "valid-"):
				if err != nil {
					t.Fatalf("valid manifest refused: %v", err)
				}
				b, _ := json.MarshalIndent(m, "", "  ")
				got = string(b) + "\n"
			case strings.HasPrefix(name, "invalid-"):
				if err == nil {
					t.Fatalf("invalid manifest accepted: %+v", m)
				}
				if !errors.Is(err, ErrManifest) {
					t.Fatalf("error %v is not a *ManifestError", err)
				}
				got = err.Error() + "\n"
			default:
				t.Fatalf("fixture %q must start with valid- or invalid-", name)
			}
			golden(t, filepath.Join(manifestDir, name+".golden"), got)
		})
	}
	if n < 40 {
		t.Fatalf("only %d manifest fixtures found", n)
	}
}

// golden compares got with the file at p, re-recording it when CWX_UPDATE_GOLDEN=1.
func golden(t *testing.T, p, got string) {
	t.Helper()
	if os.Getenv("CWX_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with CWX_UPDATE_GOLDEN=1 to record)", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs:\n--- want\n%s--- got\n%s", p, want, got)
	}
}

func TestErrorsNameFileAndField(t *testing.T) {
	_, err := ReadManifest(filepath.Join(manifestDir, "invalid-native-bad-ext"))
	var me *ManifestError
	if !errors.As(err, &me) || me.Field != "native" || !strings.HasSuffix(me.File, "plugin.json") {
		t.Fatalf("got %#v", err)
	}
}

func FuzzParseManifests(f *testing.F) {
	f.Add([]byte(`{"name":"a","version":"1","native":["x.mjs",{"path":"y.js"}]}`))
	f.Add([]byte(`{"name":"@a/b","version":"1","exports":{".":{"import":"./i.mjs"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := parsePluginJSON("plugin.json", data); err == nil {
			checkEntryShape(t, m)
		}
		if m, err := parsePackageJSON("package.json", data); err == nil {
			checkEntryShape(t, m)
		}
	})
}

func checkEntryShape(t *testing.T, m *Manifest) {
	if len(m.Entries) == 0 || len(m.Entries) > MaxEntries {
		t.Fatalf("entries %v", m.Entries)
	}
	for _, e := range m.Entries {
		if _, err := cleanEntry(e); err != nil || strings.HasPrefix(e, "../") {
			t.Fatalf("unsafe entry %q accepted", e)
		}
	}
}
