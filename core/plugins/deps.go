package plugins

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Peer is a peer dependency as the review shows it.
type Peer struct {
	Name     string `json:"name"`
	Range    string `json:"range"`
	Provided bool   `json:"provided"` // true when the cwx host provides it as a singleton
	// ProvidedSubpaths lists the specifiers under Name the host serves when it does not
	// serve the package itself (e.g. @deepseek-ai/dsh-commands/brand); other imports fail.
	ProvidedSubpaths []string `json:"provided_subpaths,omitempty"`
}

// depReport is what the dependency check found.
type depReport struct {
	Missing []string // "name" or "name (needed by pkg)", sorted
	Peers   []Peer   // the package's own peer dependencies
}

// providedUnder lists the provided specifiers that are subpaths of the package name.
func providedUnder(name string, provided map[string]bool) []string {
	var out []string
	for spec := range provided {
		if strings.HasPrefix(spec, name+"/") {
			out = append(out, spec)
		}
	}
	sort.Strings(out)
	return out
}

// checkDeps verifies that every runtime dependency of the package at root (recursively,
// through bundled packages) is either bundled under a node_modules folder inside root,
// resolved the way Node resolves it, or a host singleton in provided. Nothing is fetched.
func checkDeps(root string, m *Manifest, provided map[string]bool) depReport {
	var rep depReport
	for _, name := range sortedKeys(m.PeerDependencies) {
		peer := Peer{Name: name, Range: m.PeerDependencies[name], Provided: provided[name]}
		if !peer.Provided {
			peer.ProvidedSubpaths = providedUnder(name, provided)
		}
		rep.Peers = append(rep.Peers, peer)
	}
	seen := map[string]bool{}
	missing := map[string]bool{}
	var walk func(dir, pkg string, deps map[string]string, optional map[string]string)
	walk = func(dir, pkg string, deps, optional map[string]string) {
		for _, name := range sortedKeys(deps) {
			if provided[name] {
				continue
			}
			found := resolvePackage(root, dir, name)
			if found == "" {
				if _, opt := optional[name]; opt {
					continue
				}
				if pkg == "" {
					missing[name] = true
				} else {
					missing[fmt.Sprintf("%s (needed by %s)", name, pkg)] = true
				}
				continue
			}
			if seen[found] {
				continue
			}
			seen[found] = true
			sub, subOpt := readPackageDeps(found)
			walk(found, name, sub, subOpt)
		}
	}
	walk(root, "", m.Dependencies, m.OptionalDependencies)
	for k := range missing {
		rep.Missing = append(rep.Missing, k)
	}
	sort.Strings(rep.Missing)
	return rep
}

// resolvePackage looks for node_modules/<name> from dir up to root (never above it).
func resolvePackage(root, dir, name string) string {
	for {
		cand := filepath.Join(dir, "node_modules", filepath.FromSlash(name))
		if fi, err := os.Stat(filepath.Join(cand, "package.json")); err == nil && fi.Mode().IsRegular() && resolvesInside(root, cand) {
			return cand
		}
		if dir == root {
			return ""
		}
		parent := filepath.Dir(dir)
		if r, err := filepath.Rel(root, parent); err != nil || strings.HasPrefix(r, "..") {
			return ""
		}
		dir = parent
	}
}

// readPackageDeps reads a bundled package's dependencies; an unreadable file yields none
// (the package's own import will fail loudly at activation).
func readPackageDeps(dir string) (deps, optional map[string]string) {
	data, err := readSmall(filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, nil
	}
	var pj struct {
		Dependencies         map[string]string `json:"dependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if json.Unmarshal(data, &pj) != nil {
		return nil, nil
	}
	return pj.Dependencies, pj.OptionalDependencies
}
