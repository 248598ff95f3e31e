package scripttools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const good = "#!/bin/sh\n# ---\n# name: word_count\n# description: Count words.\n# input_schema: {\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}}}\n# timeout: 5\n# ---\nwc -w\n"

func TestParse(t *testing.T) {
	s, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "word_count" || s.Description != "Count words." || s.Timeout != 5*time.Second || s.AskedAuto ||
		string(s.InputSchema) != `{"type":"object","properties":{"text":{"type":"string"}}}` {
		t.Errorf("Parse = %+v", s)
	}
	js, err := Parse([]byte("// ---\n// name: j\n// description: d\n// approval: auto\n// ---\n"))
	if err != nil || !js.AskedAuto || js.Timeout != DefaultTimeout || string(js.InputSchema) != defaultSchema {
		t.Errorf("// frontmatter: %+v, %v", js, err)
	}
	for _, tc := range []struct{ name, src, err string }{
		{"no frontmatter", "#!/bin/sh\necho hi\n", "has no frontmatter"},
		{"not closed", "# ---\n# name: a\n# description: b\necho\n", "not closed"},
		{"unknown key", "# ---\n# name: a\n# description: b\n# color: red\n# ---\n", `unknown frontmatter key "color"`},
		{"duplicate key", "# ---\n# name: a\n# name: b\n# description: b\n# ---\n", "given twice"},
		{"bad name", "# ---\n# name: 1a\n# description: b\n# ---\n", "must match"},
		{"no description", "# ---\n# name: a\n# ---\n", "needs both"},
		{"schema not an object", "# ---\n# name: a\n# description: b\n# input_schema: [1]\n# ---\n", "holding an object"},
		{"schema null", "# ---\n# name: a\n# description: b\n# input_schema: null\n# ---\n", "holding an object: it is null"},
		{"timeout too long", "# ---\n# name: a\n# description: b\n# timeout: 301\n# ---\n", "from 1 to 300"},
		{"bad approval", "# ---\n# name: a\n# description: b\n# approval: never\n# ---\n", "is not auto or required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse: %v, want %q", err, tc.err)
			}
		})
	}
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("wc.sh", good, 0o755)
	write("README.md", "# not a script\n", 0o644)
	write(".hidden", good, 0o755)
	write("broken.sh", "#!/bin/sh\necho\n", 0o755)
	write("a.sh", "# ---\n# name: Twin-Name\n# description: a\n# ---\n", 0o755)
	write("b.sh", "# ---\n# name: twin_name\n# description: b\n# ---\n", 0o755)
	if err := os.Symlink(filepath.Join(dir, "wc.sh"), filepath.Join(dir, "link.sh")); err != nil {
		t.Fatal(err)
	}
	scripts, problems, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) != 1 || scripts[0].Name != "word_count" || scripts[0].File != "wc.sh" || len(scripts[0].SHA256) != 64 {
		t.Errorf("scripts = %+v", scripts)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.File)
	}
	if strings.Join(got, " ") != "a.sh b.sh broken.sh link.sh" {
		t.Errorf("problems = %v", problems)
	}
	if s, p, err := Discover(filepath.Join(dir, "missing")); err != nil || s != nil || p != nil {
		t.Errorf("missing dir: %v %v %v", s, p, err)
	}
}

// TestParseReportsTheFirstBadField: with more than one bad field, the error is always about
// the first in the file, so a listing does not change from one read to the next.
func TestParseReportsTheFirstBadField(t *testing.T) {
	src := []byte("# ---\n# name: 1a\n# description: b\n# timeout: 0\n# approval: never\n# color: red\n# ---\n")
	for range 50 {
		if _, err := Parse(src); err == nil || !strings.Contains(err.Error(), "must match") {
			t.Fatalf("Parse: %v, want the name's error", err)
		}
	}
}
