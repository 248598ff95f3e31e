package doccheck

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// trackedFiles lists the files git tracks under root, as slash paths relative to it. The
// built host bundle is generated from its sources and is left out.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v (the check reads the tracked files; run it in a clone)", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" || strings.HasPrefix(f, "nodeshim/jshost/dist/") || strings.Contains(f, "node_modules/") {
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("git ls-files listed nothing")
	}
	return files
}

// textFile reports whether f is a file whose comments or prose may cite a section.
func textFile(f string) bool {
	switch filepath.Ext(f) {
	case ".go", ".ts", ".js", ".mjs", ".cjs", ".md", ".sh", ".json", ".yml", ".yaml", ".txt":
		return true
	}
	return filepath.Base(f) == "Makefile"
}

// commentMarker is what starts a comment or quote line, dropped when lines are joined so a
// citation that wraps reads as one.
var commentMarker = regexp.MustCompile(`^\s*(?://+|/\*+|\*+/?|#+|>)?\s?`)

// joined is text with each line's comment marker removed and the lines joined by spaces.
func joined(text []byte) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := commentMarker.ReplaceAllString(sc.Text(), "")
		b.WriteString(strings.TrimSpace(line))
		b.WriteByte(' ')
	}
	return b.String()
}

var (
	// docCitation is `NAME.md, “Heading”` (the comma and an opening parenthesis optional).
	docCitation = regexp.MustCompile("\\b([A-Z][A-Z_]*\\.md),?\\s*\\(?\\s*[“\"]([A-Z0-9`][^”\"]{0,99})[”\"]")
	// pkgCitation is `dir doc.go` or `dir/doc.go`, optionally followed by `, “Heading”`.
	pkgCitation = regexp.MustCompile("\\b((?:core|nodeshim|shared|examples)(?:/[A-Za-z0-9_.-]+)*)(?: |/)doc\\.go(?:,\\s*[“\"]([A-Z0-9`][^”\"]{0,99})[”\"])?")
	// selfReference is a bare (“Heading”) inside ARCHITECTURE.md.
	selfReference = regexp.MustCompile("\\(“([A-Z0-9`][^”]{0,99})”")
)

// markdownHeadings are the headings of a Markdown file, "## Sandbox" giving "Sandbox".
func markdownHeadings(text []byte) map[string]bool {
	h := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		if title != "" {
			h[title] = true
			// "## The JSON stack (`core/gate`)" and "## The cheaper path: profiles" are
			// cited by their names, “The JSON stack” and “The cheaper path”.
			for _, sep := range []string{" (", ": "} {
				if name, _, ok := strings.Cut(title, sep); ok {
					h[name] = true
				}
			}
		}
	}
	return h
}

// docGoHeadings are the headings of a doc.go, "// # Native tools" giving "Native tools".
func docGoHeadings(text []byte) map[string]bool {
	h := map[string]bool{}
	for _, line := range strings.Split(string(text), "\n") {
		if title, ok := strings.CutPrefix(line, "// # "); ok {
			h[strings.TrimSpace(title)] = true
		}
	}
	return h
}

// citation is one pointer at a section, found in a file.
type citation struct {
	in, doc, heading string
}

// findCitations returns the citations of text, which is the file named in.
func findCitations(in string, text []byte) []citation {
	var cs []citation
	j := joined(text)
	for _, m := range docCitation.FindAllStringSubmatch(j, -1) {
		cs = append(cs, citation{in: in, doc: m[1], heading: m[2]})
	}
	for _, m := range pkgCitation.FindAllStringSubmatch(j, -1) {
		cs = append(cs, citation{in: in, doc: m[1] + "/doc.go", heading: m[2]})
	}
	if in == "ARCHITECTURE.md" {
		for _, idx := range selfReference.FindAllStringSubmatchIndex(j, -1) {
			before := j[max(0, idx[0]-16):idx[0]]
			if strings.Contains(before, ".md") || strings.Contains(before, "doc.go") {
				continue // a citation of another document, matched above
			}
			cs = append(cs, citation{in: in, doc: in, heading: j[idx[2]:idx[3]]})
		}
	}
	return cs
}

// headingsOf reads the headings of doc, a root Markdown file or a doc.go, caching them; a
// document that does not exist has none and reports false.
func headingsOf(root, doc string, cache map[string]map[string]bool) (map[string]bool, bool) {
	if h, ok := cache[doc]; ok {
		return h, h != nil
	}
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
	if err != nil {
		cache[doc] = nil
		return nil, false
	}
	var h map[string]bool
	if strings.HasSuffix(doc, ".md") {
		h = markdownHeadings(text)
	} else {
		h = docGoHeadings(text)
	}
	cache[doc] = h
	return h, true
}

// TestCitationsNameHeadings checks that every citation in a tracked file names a document
// that exists and, when it names a heading, a heading that document has.
func TestCitationsNameHeadings(t *testing.T) {
	root := plugintest.RepoRoot(t)
	cache := map[string]map[string]bool{}
	checked := 0
	for _, f := range trackedFiles(t, root) {
		if !textFile(f) || f == "CHANGELOG.md" || strings.HasPrefix(f, "core/internal/doccheck/") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range findCitations(f, text) {
			checked++
			h, ok := headingsOf(root, c.doc, cache)
			switch {
			case !ok:
				t.Errorf("%s cites %s, which does not exist", c.in, c.doc)
			case c.heading != "" && !h[c.heading]:
				t.Errorf("%s cites %s, “%s”: %s has no such heading", c.in, c.doc, c.heading, c.doc)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no citation found: the patterns no longer match the repository's form")
	}
	t.Logf("%d citations checked", checked)
}

// TestFindCitations pins the forms the patterns recognise, and one they must not.
func TestFindCitations(t *testing.T) {
	tests := []struct {
		name, in, text string
		want           []citation
	}{
		{"curly", "a.go", "// x (ARCHITECTURE.md, “Sandbox”).", []citation{{"a.go", "ARCHITECTURE.md", "Sandbox"}}},
		{"straight", "a.go", `// x (BENCHMARKS.md, "The cheaper path").`, []citation{{"a.go", "BENCHMARKS.md", "The cheaper path"}}},
		{"wrapped", "a.go", "// x (ARCHITECTURE.md,\n// “Trust model”).", []citation{{"a.go", "ARCHITECTURE.md", "Trust model"}}},
		{"wrapped heading", "a.ts", "  // see (ARCHITECTURE.md, “Lifecycles and\n  // numbers”)", []citation{{"a.ts", "ARCHITECTURE.md", "Lifecycles and numbers"}}},
		{"no comma", "b.md", "ARCHITECTURE.md “Probe cache”", []citation{{"b.md", "ARCHITECTURE.md", "Probe cache"}}},
		{"parenthesis", "a.go", "ARCHITECTURE.md (“Processes”, fd 1)", []citation{{"a.go", "ARCHITECTURE.md", "Processes"}}},
		{"doc.go with heading", "a.go", "// (core/natives doc.go, “Native tools”)", []citation{{"a.go", "core/natives/doc.go", "Native tools"}}},
		{"doc.go path", "a.go", "// see core/cli/doc.go.", []citation{{"a.go", "core/cli/doc.go", ""}}},
		{"core's own doc.go", "a.go", "// (core doc.go, “The owner layer”)", []citation{{"a.go", "core/doc.go", "The owner layer"}}},
		{"self reference", "ARCHITECTURE.md", "the shim check (“Embedding”) and", []citation{{"ARCHITECTURE.md", "ARCHITECTURE.md", "Embedding"}}},
		{"a possessive is no citation", "a.go", "// ARCHITECTURE.md's JSON decision", nil},
		{"a bare parenthesis elsewhere is no citation", "README.md", "the shim check (“Embedding”)", nil},
		{"a quoted file name is no citation", "a.go", `files := []string{"README.md", "main.go"}`, nil},
		{"a quoted message is no citation", "ARCHITECTURE.md", "prints (“…denied the call”)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := findCitations(tt.in, []byte(tt.text))
			if len(got) != len(tt.want) {
				t.Fatalf("findCitations(%q) = %v, want %v", tt.text, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("citation %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// issueNumber is a reference to a numbered issue: "issue 12", "Issues 12 and 13", "#12".
var issueNumber = regexp.MustCompile(`(?i)\bissues?\s+#?\d+|(?:^|[\s(\[,;])#\d+\b`)

// TestNoIssueNumbersInDocuments checks that no tracked document but CHANGELOG.md names an
// issue: every Markdown file and every doc.go.
func TestNoIssueNumbersInDocuments(t *testing.T) {
	root := plugintest.RepoRoot(t)
	checked := 0
	for _, f := range trackedFiles(t, root) {
		if f == "CHANGELOG.md" || (filepath.Ext(f) != ".md" && filepath.Base(f) != "doc.go") {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(text), "\n") {
			if m := issueNumber.FindString(line); m != "" {
				t.Errorf("%s:%d names an issue (%q): a reader cannot open it; say what the text means, and keep history in CHANGELOG.md", f, i+1, strings.TrimSpace(m))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no document found")
	}
}

// TestIssueNumberPattern pins what counts as naming an issue, and what does not.
func TestIssueNumberPattern(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"the fix of issue 27 keeps", true},
		{"Issues 12 and 13", true},
		{"see #27.", true},
		{"(#4)", true},
		{"## Heading", false},
		{"the `#` comment", false},
		{"color: #fff", false},
		{"an issue with 3 parts", false},
		{"a1#2", false},
	}
	for _, tt := range tests {
		if got := issueNumber.MatchString(tt.line); got != tt.want {
			t.Errorf("issueNumber.MatchString(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
