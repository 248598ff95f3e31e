package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/ccplugin"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
	"github.com/cwx-dev/cwx/core/plugins"
)

// A server a plugin folder brings (a Claude Code plugin's .mcp.json) is not the user's
// decision: it runs only after `cwx mcp review NAME` showed what would run and `cwx mcp trust
// NAME --token T` trusted exactly that. The token is bound to the server's identity digest
// (command, args, env names, cwd, with ${CLAUDE_PLUGIN_ROOT} expanded to the plugin's
// staged copy, whose path holds its closure hash), so a new plugin version, or any change of
// what would run, needs a new review. A remote server of a plugin is bound to its transport,
// URL and header names, and is reached exactly as the plugin wrote it: the user's variables
// are never expanded into it ([pluginVariable]). Trust is kept in $CWX_HOME/mcp-trust.json.

// TrustFile is the file under the cwx home that keeps the trusted plugin servers.
const TrustFile = "mcp-trust.json"

// maxTrustBytes bounds the trust file.
const maxTrustBytes = 1 << 20

// Candidate is one MCP server of a trusted, enabled Claude Code plugin, as cwx would run it.
type Candidate struct {
	Server config.MCPServer
	Plugin string // the plugin id
	// Problem says why it cannot run at all ("" when it can once trusted): a remote server
	// whose URL or headers name a variable, a name cwx cannot give it, a name config.toml or
	// another plugin already uses.
	Problem string
}

// Review is what `cwx mcp review NAME` prints: what would run, and the token that trusts it.
type Review struct {
	Name   string `json:"name"`
	Plugin string `json:"plugin,omitempty"`
	// Source is the mcp_servers_file the server is read from, "" for a plugin's or
	// config.toml's.
	Source  string   `json:"source,omitempty"`
	Command []string `json:"command,omitempty"`
	Env     []string `json:"env,omitempty"` // names only
	Cwd     string   `json:"cwd,omitempty"`
	// Transport, URL and Headers (names only) are a remote server's.
	Transport string   `json:"transport"`
	URL       string   `json:"url,omitempty"`
	Headers   []string `json:"headers,omitempty"`
	Identity  string   `json:"identity"`
	Token     string   `json:"token,omitempty"`
	Trusted   bool     `json:"trusted"`
	Problem   string   `json:"problem,omitempty"`
	Note      string   `json:"note"`
}

// ReviewNote is what every review says of a server.
const ReviewNote = "an MCP server runs unsandboxed, with your rights, in the workspace; its tools go through the hooks and the approval gate"

// ReviewOf is c's review under trust.
func ReviewOf(c Candidate, trust map[string]TrustEntry) Review {
	r := ReviewOfServer(c.Server)
	r.Plugin, r.Problem = c.Plugin, c.Problem
	if c.Problem == "" {
		r.Token = Token(c.from(), c.Server.Name, r.Identity)
		e, ok := trust[c.Server.Name]
		r.Trusted = ok && e.from() == c.from() && e.Identity == r.Identity
	}
	return r
}

// from is what brought the server: its plugin's id, or file:<path> for an mcp_servers_file.
func (c Candidate) from() string {
	if c.Plugin != "" {
		return c.Plugin
	}
	return "file:" + c.Server.Source
}

// ReviewOfServer is what a review shows of s, without trust: what runs and where, or what is
// reached and with which headers (names only), and the identity.
func ReviewOfServer(s config.MCPServer) Review {
	r := Review{Name: s.Name, Source: s.Source, Transport: s.Transport, Identity: s.Identity(), Note: ReviewNote}
	if s.Remote() {
		r.URL, r.Headers, r.Note = egress.RedactQuery(s.URL), s.HeaderNames(), RemoteReviewNote
		return r
	}
	r.Transport = config.MCPStdio
	r.Command, r.Env, r.Cwd = append([]string{s.Command}, s.Args...), slices.Sorted(maps.Keys(s.Env)), s.Cwd
	if r.Cwd == "" {
		r.Cwd = "(the workspace)"
	}
	return r
}

// RemoteReviewNote is what every review says of a remote server.
const RemoteReviewNote = "a remote MCP server is reached from the core, its headers for its URL's origin only; its tools go through the hooks and the approval gate"

// Token is the trust token of a plugin's server with identity.
func Token(plugin, name, identity string) string {
	sum := sha256.Sum256([]byte("cwx mcp trust\n" + plugin + "\n" + name + "\n" + identity))
	return "mcp1-" + hex.EncodeToString(sum[:16])
}

// PluginServerName is the cwx name of a plugin's server: lower case, `_` and spaces as `-`,
// other characters dropped, cut to 32; "" when nothing is left that starts with a letter.
func PluginServerName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-':
			b.WriteRune(r)
		case r == '_' || r == ' ' || r == '.':
			b.WriteByte('-')
		}
	}
	out := b.String()
	if len(out) > 32 {
		out = out[:32]
	}
	if !config.ValidMCPName(out) {
		return ""
	}
	return out
}

// Candidates are the MCP servers of the Claude Code plugins ps and of the mcp_servers_file
// files, as cwx would run them, sorted by name. A name that configured (config.toml's
// servers) has, or that two servers share, is a problem of each server that has it.
func Candidates(ps []plugins.ClaudeDesired, files []FileServers, configured map[string]config.MCPServer) []Candidate {
	var out []Candidate
	for _, p := range ps {
		for _, m := range p.Plugin.MCP {
			c := Candidate{Plugin: p.ID}
			name := PluginServerName(m.Name)
			expand := func(s string) string { return strings.ReplaceAll(s, "${CLAUDE_PLUGIN_ROOT}", p.Root) }
			c.Server = config.MCPServer{Name: name, Transport: config.MCPStdio, Plugin: p.ID, Command: expand(m.Command), Approval: config.MCPApprovalAsk,
				TimeoutS: config.DefaultMCPTimeoutS, MaxResultBytes: config.DefaultMCPResultBytes, Env: map[string]string{}}
			for _, a := range m.Args {
				c.Server.Args = append(c.Server.Args, expand(a))
			}
			for k, v := range m.EnvValues {
				c.Server.Env[k] = expand(v)
			}
			if m.URL != "" {
				c.Server.Command, c.Server.Args, c.Server.Env = "", nil, nil
				c.Server.Transport, c.Server.URL = m.Type, m.URL
				if why := pluginVariable(m); why != "" {
					c.Problem = why + ": cwx puts none of your variables into a plugin's server (name the server in config.toml, with headers from ${env:VAR})"
				} else if err := config.CheckRemoteMCP(&c.Server, m.HeaderValues, ""); err != nil {
					c.Problem = "its " + err.Error()
				}
			}
			switch {
			case c.Problem != "":
				if name == "" {
					c.Server.Name = m.Name
				}
			case name == "":
				c.Server.Name = m.Name
				c.Problem = fmt.Sprintf("no cwx name fits %q (^[a-z][a-z0-9-]{0,31}$)", m.Name)
			}
			out = append(out, c)
		}
	}
	out = append(out, fileCandidates(files)...)
	count := map[string]int{}
	for i, c := range out {
		if c.Problem != "" {
			continue
		}
		if _, ok := configured[c.Server.Name]; ok {
			out[i].Problem = fmt.Sprintf("config.toml already has a server %q", c.Server.Name)
		}
		count[c.Server.Name]++
	}
	for i, c := range out {
		if c.Problem == "" && count[c.Server.Name] > 1 {
			out[i].Problem = fmt.Sprintf("another plugin's or file's server is also called %q", c.Server.Name)
		}
	}
	slices.SortStableFunc(out, func(a, b Candidate) int { return strings.Compare(a.Server.Name, b.Server.Name) })
	return out
}

// pluginVariable names the first place of remote plugin server m that asks for a variable
// (`${…}`), "" when none does. A plugin's URL and headers are the plugin author's words:
// expanding the user's environment into them would send the user's secrets wherever the
// plugin points, so a remote plugin server is run exactly as written or not at all.
func pluginVariable(m ccplugin.MCPServer) string {
	if strings.Contains(m.URL, "${") {
		return "its url names a variable"
	}
	for _, k := range slices.Sorted(maps.Keys(m.HeaderValues)) {
		if strings.Contains(m.HeaderValues[k], "${") {
			return "its header " + k + " names a variable"
		}
	}
	return ""
}

// TrustEntry is one trusted server of a plugin or of an mcp_servers_file.
type TrustEntry struct {
	Plugin   string `json:"plugin,omitempty"`
	Source   string `json:"source,omitempty"`
	Identity string `json:"identity"`
}

func (e TrustEntry) from() string {
	if e.Plugin != "" {
		return e.Plugin
	}
	return "file:" + e.Source
}

type trustFile struct {
	Version int                   `json:"version"`
	Servers map[string]TrustEntry `json:"servers"`
}

// LoadTrust reads home's trusted plugin servers (none when the file does not exist).
func LoadTrust(home string) (map[string]TrustEntry, error) {
	p := filepath.Join(home, TrustFile)
	data, err := boundedfile.Read(p, maxTrustBytes, false)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]TrustEntry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	var f trustFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 {
		return nil, fmt.Errorf("%s is not a cwx MCP trust file (version 1); remove it and trust the servers again", p)
	}
	if f.Servers == nil {
		f.Servers = map[string]TrustEntry{}
	}
	return f.Servers, nil
}

// SaveTrust replaces home's trusted plugin servers atomically (mode 0600).
func SaveTrust(home string, servers map[string]TrustEntry) error {
	data, err := json.MarshalIndent(trustFile{Version: 1, Servers: servers}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(home, ".mcp-trust-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(home, TrustFile))
}
