package skills

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Bounds of discovery.
const (
	MaxFile        = 64 << 10
	MaxDescription = 1024
	MaxSkills      = 256
)

// Skill is one admitted skill.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"` // its SKILL.md
}

// Problem is one candidate refused, and why.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

var nameRE = lazyre.New(`^[a-z0-9][a-z0-9-]{0,63}$`)

// Discover lists the skills of roots, sorted by name (the first root wins a repeated name,
// the later one is a problem), and the candidates it refused.
func Discover(roots []string) ([]Skill, []Problem) {
	var out []Skill
	var probs []Problem
	seen := map[string]bool{}
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			probs = append(probs, Problem{Path: root, Reason: "the skills root cannot be read: " + err.Error()})
			continue
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			path := filepath.Join(root, e.Name(), "SKILL.md")
			s, why := read(path, e.Name())
			switch {
			case why == "missing":
				continue
			case why != "":
				probs = append(probs, Problem{Path: path, Reason: why})
			case seen[s.Name]:
				probs = append(probs, Problem{Path: path, Reason: fmt.Sprintf("the name %q is already a skill of an earlier root", s.Name)})
			case len(out) == MaxSkills:
				probs = append(probs, Problem{Path: path, Reason: fmt.Sprintf("more than %d skills", MaxSkills)})
			default:
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, probs
}

// read audits one SKILL.md; why is "missing" when there is none.
func read(path, folder string) (Skill, string) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Skill{}, "missing"
	case err != nil:
		return Skill{}, err.Error()
	case fi.Mode()&fs.ModeSymlink != 0:
		return Skill{}, "SKILL.md is a symbolic link"
	case !fi.Mode().IsRegular():
		return Skill{}, "SKILL.md is not a regular file"
	case fi.Size() > MaxFile:
		return Skill{}, fmt.Sprintf("SKILL.md is %d bytes; the limit is %d", fi.Size(), MaxFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, err.Error()
	}
	s, why := Parse(b)
	if why != "" {
		return Skill{}, why
	}
	if s.Name != folder {
		return Skill{}, fmt.Sprintf("the name %q differs from its folder %q", s.Name, folder)
	}
	s.Path = path
	return s, ""
}

// Parse reads a SKILL.md's front matter: a first line `---`, `key: value` lines, a line
// `---`. It returns why the file is refused, or "".
func Parse(b []byte) (Skill, string) {
	if len(b) > MaxFile {
		return Skill{}, fmt.Sprintf("SKILL.md is %d bytes; the limit is %d", len(b), MaxFile)
	}
	if !utf8.Valid(b) {
		return Skill{}, "SKILL.md is not valid UTF-8"
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), MaxFile)
	if !sc.Scan() || strings.TrimRight(sc.Text(), "\r") != "---" {
		return Skill{}, "SKILL.md has no front matter (a first line `---`)"
	}
	var s Skill
	closed := false
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "---" {
			closed = true
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = unquote(strings.TrimSpace(v))
		switch strings.TrimSpace(k) {
		case "name":
			s.Name = v
		case "description":
			s.Description = v
		}
	}
	switch {
	case !closed:
		return Skill{}, "SKILL.md's front matter does not end with `---`"
	case !nameRE().MatchString(s.Name):
		return Skill{}, fmt.Sprintf("the name %q is not lower-case letters, digits and '-' (at most 64)", s.Name)
	case strings.TrimSpace(s.Description) == "":
		return Skill{}, "the description is empty"
	case len(s.Description) > MaxDescription:
		return Skill{}, fmt.Sprintf("the description is %d bytes; the limit is %d", len(s.Description), MaxDescription)
	}
	if err := inert.Check(s.Description); err != nil {
		return Skill{}, fmt.Sprintf("the description %v", err)
	}
	return s, ""
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}
