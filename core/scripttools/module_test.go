package scripttools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func script(name, extra string) string {
	return "#!/bin/sh\n# ---\n# name: " + name + "\n# description: d.\n" + extra + "# ---\necho\n"
}

// TestModule: a script whose name folds to a taken or reserved name is refused with a note,
// `approval: auto` is noted and ignored, and only the admitted scripts reach the config.
func TestModule(t *testing.T) {
	dir := t.TempDir()
	for file, src := range map[string]string{
		"ok.sh":       script("word_count", ""),
		"auto.sh":     script("auto_tool", "# approval: auto\n"),
		"shadow.sh":   script("Read-File", ""),
		"reserved.sh": script("mcp_thing", ""),
	} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Module(dir, map[string]string{"read_file": "the built-in tool `read_file`"})
	if err != nil {
		t.Fatal(err)
	}
	var cfg moduleConfig
	if err := json.Unmarshal(w.Config, &cfg); err != nil || !w.Needed {
		t.Fatalf("Module = %+v, %v", w, err)
	}
	var names []string
	for _, tl := range cfg.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"auto_tool", "word_count"}) {
		t.Errorf("admitted %v, want auto_tool and word_count", names)
	}
	notes := strings.Join(w.Notes, "\n")
	for _, want := range []string{"`Read-File` would shadow the built-in tool `read_file`", "reserved prefix `mcp_`", "auto.sh: `approval: auto` ignored"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if cfg.Env["PATH"] == "" || cfg.MaxOutputBytes != MaxOutputBytes {
		t.Errorf("config env %v, output bound %d", cfg.Env, cfg.MaxOutputBytes)
	}
	if w, err := Module(t.TempDir(), nil); err != nil || w.Needed || w.Config != nil {
		t.Errorf("no scripts: %+v, %v; want not needed", w, err)
	}
}
