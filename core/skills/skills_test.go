package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscover(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write(t, filepath.Join(a, "review", "SKILL.md"), "---\nname: review\ndescription: \"Review a change\"\n---\nbody\n")
	write(t, filepath.Join(a, "other", "SKILL.md"), "---\nname: wrong\ndescription: x\n---\n")
	write(t, filepath.Join(a, "nofront", "SKILL.md"), "just text\n")
	write(t, filepath.Join(a, "escape", "SKILL.md"), "---\nname: escape\ndescription: a\x1b[2Jb\n---\n")
	write(t, filepath.Join(a, "notes.txt"), "not a skill")
	if err := os.MkdirAll(filepath.Join(a, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(b, "review", "SKILL.md"), "---\nname: review\ndescription: again\n---\n")
	write(t, filepath.Join(b, "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint it\n---\n")
	if err := os.MkdirAll(filepath.Join(b, "link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(b, "lint", "SKILL.md"), filepath.Join(b, "link", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	got, probs := Discover([]string{a, b, filepath.Join(a, "missing")})
	var names []string
	for _, s := range got {
		names = append(names, s.Name+"="+s.Description)
	}
	if strings.Join(names, ",") != "lint=Lint it,review=Review a change" {
		t.Errorf("skills = %q", names)
	}
	reasons := map[string]string{}
	for _, p := range probs {
		reasons[filepath.Base(filepath.Dir(p.Path))+"@"+filepath.Base(filepath.Dir(filepath.Dir(p.Path)))] = p.Reason
	}
	for _, want := range []struct{ key, has string }{
		{"other@" + filepath.Base(a), "differs from its folder"},
		{"nofront@" + filepath.Base(a), "no front matter"},
		{"escape@" + filepath.Base(a), "description"},
		{"review@" + filepath.Base(b), "earlier root"},
		{"link@" + filepath.Base(b), "symbolic link"},
	} {
		if !strings.Contains(reasons[want.key], want.has) {
			t.Errorf("problem of %s = %q; want it to say %q", want.key, reasons[want.key], want.has)
		}
	}
	if len(probs) != 5 {
		t.Errorf("problems = %+v; want 5", probs)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\n---\n"))
	f.Add([]byte("---\nname: 'x-1'\ndescription: \"d\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, why := Parse(b)
		if why != "" {
			return
		}
		if !nameRE().MatchString(s.Name) || s.Description == "" || len(s.Description) > MaxDescription {
			t.Fatalf("Parse admitted %+v", s)
		}
	})
}
