package deptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Rule says which imports a set of packages must never reach. Patterns are import paths;
// a pattern ending in "/..." matches that path and every path below it.
type Rule struct {
	Name   string   // what the rule protects, quoted in every violation
	From   []string // packages the rule applies to
	Except []string // packages matched by From that the rule leaves alone
	Deny   []string // imports a From package must not reach
	Allow  []string // imports matched by Deny that are allowed after all
	// Direct limits the rule to a package's own imports: a layer that must go through
	// another layer's door may still reach, through that door, what stands behind it.
	Direct bool
}

// Graph maps each package's import path to the import paths it imports directly.
type Graph map[string][]string

// Violation is one package reaching one refused import.
type Violation struct {
	Rule  string
	From  string
	Dep   string
	Chain []string // From, the packages in between, Dep
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s imports %s (%s)", v.Rule, v.From, v.Dep, strings.Join(v.Chain, " -> "))
}

// listed is the part of `go list -json` output that Load reads.
type listed struct {
	ImportPath string
	Imports    []string
	Error      *struct{ Err string }
}

// Load runs `go list -deps -json` on patterns in dir and returns the import graph of the
// matched packages and everything they depend on.
func Load(dir string, patterns ...string) (Graph, error) {
	args := append([]string{"list", "-deps", "-json=ImportPath,Imports,Error"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	return decode(bytes.NewReader(out))
}

func decode(r io.Reader) (Graph, error) {
	g := Graph{}
	dec := json.NewDecoder(r)
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return g, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		g[p.ImportPath] = p.Imports
	}
}

// Check returns every violation of rules in g, sorted by rule, package and import.
func Check(g Graph, rules []Rule) []Violation {
	var out []Violation
	for _, r := range rules {
		for _, from := range sortedKeys(g) {
			if matchAny(r.From, from) && !matchAny(r.Except, from) {
				out = append(out, r.reached(g, from)...)
			}
		}
	}
	return out
}

// reached walks everything from imports, breadth first so each chain is a shortest one,
// and returns a violation for each refused import it meets.
func (r Rule) reached(g Graph, from string) []Violation {
	parent := map[string]string{from: ""}
	queue := []string{from}
	var out []Violation
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, dep := range g[p] {
			if _, seen := parent[dep]; seen {
				continue
			}
			parent[dep] = p
			if !r.Direct {
				queue = append(queue, dep)
			}
			if matchAny(r.Deny, dep) && !matchAny(r.Allow, dep) {
				out = append(out, Violation{Rule: r.Name, From: from, Dep: dep, Chain: chain(parent, dep)})
			}
		}
	}
	slices.SortFunc(out, func(a, b Violation) int { return strings.Compare(a.Dep, b.Dep) })
	return out
}

// Unmatched returns the names of the rules whose From matches no package of g: a rule
// that applies to nothing (a package renamed away from it) protects nothing.
func Unmatched(g Graph, rules []Rule) []string {
	var out []string
	for _, r := range rules {
		if !slices.ContainsFunc(sortedKeys(g), func(p string) bool { return matchAny(r.From, p) }) {
			out = append(out, r.Name)
		}
	}
	return out
}

func chain(parent map[string]string, last string) []string {
	var c []string
	for p := last; p != ""; p = parent[p] {
		c = append(c, p)
	}
	slices.Reverse(c)
	return c
}

func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, path) })
}

func match(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func sortedKeys(g Graph) []string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
