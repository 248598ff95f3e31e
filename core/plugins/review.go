package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cwx-dev/cwx/core/ccplugin"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// RunsJavaScript is the sentence every review carries while plugins run unsandboxed.
const RunsJavaScript = "Runs JavaScript on your computer with your user permissions"

// EntryDisplay is how a native entry is described to a person.
const EntryDisplay = "host code (JavaScript)"

// Review is what `cwx plugin review` shows (and its --json output).
type Review struct {
	ID          string `json:"id"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	Kind        string `json:"kind"`   // plugin.json or package.json
	Source      string `json:"source"` // where it was installed from
	// Deprecated is the registry's deprecation message for this version ("" when none).
	Deprecated string `json:"deprecated,omitempty"`
	// Integrity is the installed tarball's sha512 ("" for a folder).
	Integrity string        `json:"integrity,omitempty"`
	Closure   string        `json:"closure_sha256"`
	Files     int           `json:"files"`
	Bytes     int64         `json:"bytes"`
	Entries   []ReviewEntry `json:"entries"`
	Peers     []Peer        `json:"peers"`
	// Notes are parts of the package cwx ignores (for example a DSH client UI).
	Notes []string `json:"notes"`
	// InstallScripts is always false for an installed plugin: packages with them are refused.
	InstallScripts bool   `json:"install_scripts"`
	Warning        string `json:"warning"`
	Policy         string `json:"policy_version"`
	// Compatibility is the sha256 of the compatibility table this review was made under (part
	// of the token), and Services what it says of each service the entries inject.
	Compatibility string          `json:"compatibility_sha256"`
	Services      []ServiceStatus `json:"services"`
	Token         string          `json:"token"`
	// Dev is set while a dev session's receipt (`cwx plugin dev`) trusts these bytes.
	Dev bool `json:"dev,omitempty"`
	// Claude is the review of a Claude Code plugin's parts (KindClaudeCode), nil otherwise.
	Claude *ClaudeReview `json:"claude_code,omitempty"`
	// Requested are the grants its manifest asks for; Grants, set by the caller that read
	// config.toml (ViewGrants), what is granted and what that means.
	Requested *GrantRequests `json:"-"`
	Grants    *GrantsView    `json:"grants,omitempty"`
}

// RunsHookCommands is the warning of a Claude Code plugin's review.
const RunsHookCommands = "Its hook commands run on your computer with your user permissions, unsandboxed, on every call they match"

// FetchNotCovered is said of a hook command that fetches code when it runs.
const FetchNotCovered = "fetches code when it runs (%s): that code is not in the closure this review covers, so trusting the plugin does not cover it"

// ClaudeReview lists what a Claude Code plugin would run, and what of it cwx does not.
type ClaudeReview struct {
	Hooks []ClaudeHook `json:"hooks"`
	// HookNotes say what of hooks/hooks.json is left out (events and hook types cwx does
	// not run) or adjusted.
	HookNotes []string           `json:"hook_notes"`
	Commands  []ccplugin.Command `json:"commands"`
	MCP       []ClaudeMCP        `json:"mcp_servers"`
	// NotRun are the plugin's parts cwx does not run (agents/, skills/, output styles, ...).
	NotRun []string `json:"not_run"`
}

// ClaudeHook is one hook command of a Claude Code plugin, as it will run.
type ClaudeHook struct {
	Event    string `json:"event"`
	Matcher  string `json:"matcher"`
	Command  string `json:"command"`
	TimeoutS int    `json:"timeout_s"`
	// Fetches says what of the command fetches code when it runs ("" when nothing does).
	Fetches string `json:"fetches,omitempty"`
}

// ClaudeMCP is one MCP server of a Claude Code plugin's .mcp.json.
type ClaudeMCP struct {
	ccplugin.MCPServer
	Status string `json:"status"` // ccplugin.MCPNotRun
}

// ReviewClaude is the review of a Claude Code plugin's parts.
func ReviewClaude(p *ccplugin.Plugin) *ClaudeReview {
	cr := &ClaudeReview{Hooks: []ClaudeHook{}, HookNotes: append([]string{}, p.HookNotes...), Commands: append([]ccplugin.Command{}, p.Commands...),
		MCP: []ClaudeMCP{}, NotRun: append([]string{}, p.NotRun...)}
	for _, h := range p.Hooks {
		cr.Hooks = append(cr.Hooks, ClaudeHook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, TimeoutS: h.TimeoutS, Fetches: ccplugin.FetchesAtRunTime(h.Command)})
	}
	for _, m := range p.MCP {
		cr.MCP = append(cr.MCP, ClaudeMCP{MCPServer: m, Status: ccplugin.MCPNotRun})
	}
	return cr
}

// ReviewEntry is one entry module in a review.
type ReviewEntry struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Display string `json:"display"` // EntryDisplay
	// Injects lists the services the entry declares in a statically visible `inject`;
	// nil when it could not be read from the source.
	Injects []string `json:"injects"`
}

// Review re-hashes the staged copy of id and describes it, with the token that trusts it.
func (s *Store) Review(id string) (*Review, error) {
	r, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if err := s.VerifyClosure(r); err != nil {
		return nil, fmt.Errorf("%w; reinstall the plugin, then review it", err)
	}
	dir := s.layout.StageDir(r.ID, r.Closure)
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	rep := checkDeps(dir, m, s.provided)
	rv := &Review{
		ID: r.ID, Version: r.Version, Description: r.Description, Kind: r.Kind, Source: r.Source,
		Deprecated: originDeprecated(r.Origin), Integrity: originIntegrity(r.Origin),
		Closure: r.Closure, Files: r.Files, Bytes: r.Bytes, Peers: rep.Peers,
		Warning: RunsJavaScript, Policy: s.policy, Compatibility: s.compat.SHA256, Services: []ServiceStatus{},
		Token: ReviewToken(r.ID, r.Closure, s.tokenPolicy()),
	}
	if rv.Peers == nil {
		rv.Peers = []Peer{}
	}
	rv.Notes = append(append([]string{}, m.Notes...), s.refusedNotes(m)...)
	rv.Requested = m.Requests
	if m.Claude != nil {
		rv.Warning, rv.Claude = RunsHookCommands, ReviewClaude(m.Claude)
	}
	for _, e := range r.Entries {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
		var inj []string
		if err == nil {
			inj = StaticInjects(src)
		}
		rv.Entries = append(rv.Entries, ReviewEntry{Path: e.Path, SHA256: e.SHA256, Display: EntryDisplay, Injects: inj})
	}
	names, _ := s.injectsOf(r, r.Closure, r.Entries)
	for _, n := range names {
		rv.Services = append(rv.Services, ServiceStatus{Name: n, Provider: s.compat.Provider(n), Detail: s.compat.Describe(n)})
	}
	rv.Dev = r.Trust != nil && r.Trust.IsDev() && s.CheckReceipt(r) == nil
	return rv, nil
}

// refusedNotes names each dependency the host refuses to load.
func (s *Store) refusedNotes(m *Manifest) []string {
	var notes []string
	for _, name := range sortedKeys(m.Dependencies) {
		if s.provided[name] {
			continue
		}
		for _, pat := range s.refused {
			if matchPattern(pat, name) {
				notes = append(notes, fmt.Sprintf("depends on %s, which the cwx host refuses to load (%s); importing it fails at activation", name, pat))
				break
			}
		}
	}
	return notes
}

// matchPattern matches name against an exact name or a prefix ending in '*'.
func matchPattern(pat, name string) bool {
	if p, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pat == name
}

var (
	injectRE  = lazyre.New(`\binject\s*[:=]\s*([\[{])`)
	quotedRE  = lazyre.New(`^\s*(?:"([^"\\]*)"|'([^'\\]*)'|([A-Za-z_$][\w$]*))\s*`)
	maxScanJS = 4 << 20
)

// StaticInjects finds `inject = [...]`, `inject: [...]` or the object form in JavaScript
// source and returns the service names it lists, sorted and deduplicated; nil when none is
// statically visible. It reads literals only and never runs anything.
func StaticInjects(src []byte) []string {
	if len(src) > maxScanJS {
		src = src[:maxScanJS]
	}
	seen := map[string]bool{}
	found := false
	for _, loc := range injectRE().FindAllSubmatchIndex(src, -1) {
		open := src[loc[2]]
		names, ok := literalNames(src[loc[3]:], open)
		if !ok {
			continue
		}
		found = true
		for _, n := range names {
			seen[n] = true
		}
	}
	if !found {
		return nil
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// literalNames reads the strings of an array literal, or the keys of an object literal,
// up to its closing bracket; it gives up on anything else.
func literalNames(rest []byte, open byte) ([]string, bool) {
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	var names []string
	for {
		m := quotedRE().FindSubmatchIndex(rest)
		if m == nil {
			trim := trimSpace(rest)
			if len(trim) > 0 && trim[0] == closer {
				return names, true
			}
			return nil, false
		}
		name := ""
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				name = string(rest[m[2*g]:m[2*g+1]])
			}
		}
		if open == '[' && m[6] >= 0 { // a bare identifier in an array is not a literal
			return nil, false
		}
		names = append(names, name)
		rest = rest[m[1]:]
		if open == '{' {
			if len(rest) == 0 || rest[0] != ':' {
				return nil, false
			}
			rest = skipValue(rest[1:])
		}
		rest = trimSpace(rest)
		switch {
		case len(rest) > 0 && rest[0] == ',':
			rest = rest[1:]
		case len(rest) > 0 && rest[0] == closer:
			return names, true
		default:
			return nil, false
		}
	}
}

// skipValue skips an object member's value up to the next ',' or '}' at depth zero.
func skipValue(b []byte) []byte {
	depth := 0
	for i, c := range b {
		switch c {
		case '{', '[', '(':
			depth++
		case ']', ')':
			depth--
		case '}':
			if depth == 0 {
				return b[i:]
			}
			depth--
		case ',':
			if depth == 0 {
				return b[i:]
			}
		}
	}
	return nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

func originDeprecated(o *Origin) string {
	if o == nil {
		return ""
	}
	return o.Deprecated
}

func originIntegrity(o *Origin) string {
	if o == nil {
		return ""
	}
	return o.Integrity
}
