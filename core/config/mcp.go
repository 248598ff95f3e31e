package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/textproto"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Bounds and defaults of an [mcp.servers.<name>] table.
const (
	// DefaultMCPTimeoutS bounds one call of a server's tool unless timeout_s says otherwise.
	DefaultMCPTimeoutS = 120
	// MaxMCPTimeoutS is the largest timeout_s (one hour).
	MaxMCPTimeoutS = 3600
	// DefaultMCPResultBytes bounds the JSON of one tool result unless max_result_bytes says
	// otherwise.
	DefaultMCPResultBytes = 1 << 20
	// MaxMCPResultBytes is the largest max_result_bytes (16 MiB).
	MaxMCPResultBytes = 16 << 20
	// MaxMCPServers bounds the servers config.toml may name.
	MaxMCPServers = 64
)

// The values of an MCP server's approval.
const (
	MCPApprovalAsk  = "ask"  // every call goes through the approval gate (the default)
	MCPApprovalAuto = "auto" // the server's calls are approved without a card
)

// mcpNameRE is an MCP server's name: no `_`, so `mcp_<server>_<tool>` reads back unambiguously.
var mcpNameRE = lazyre.New(`^[a-z][a-z0-9-]{0,31}$`)

// ValidMCPName reports whether name is a valid MCP server name.
func ValidMCPName(name string) bool { return mcpNameRE().MatchString(name) }

// The transports of an MCP server (MCPServer.Transport).
const (
	MCPStdio = "stdio" // a process the core spawns, speaking on its stdin and stdout
	MCPHTTP  = "http"  // Streamable HTTP at URL
	MCPSSE   = "sse"   // the legacy HTTP+SSE transport at URL, for a server that has only that
)

// MCPServer is one [mcp.servers.<name>] table: an MCP server the core runs (stdio) or
// reaches (http, sse). A server written in config.toml is the user's decision and needs no
// review (core/mcpclient); one from a plugin folder or an mcp_servers_file does.
type MCPServer struct {
	Name string `json:"name"`
	// Transport is MCPStdio, MCPHTTP or MCPSSE.
	Transport string `json:"transport"`
	// Command is a stdio server's program; "" for a remote one.
	Command string `json:"command,omitempty"`
	// URL is a remote server's endpoint; "" for a stdio one.
	URL string `json:"url,omitempty"`
	// Headers are sent with each request to URL's exact origin (core/egress): for a table
	// of config.toml the values as written, ${env:NAME} expanded by the client in the core
	// when it connects; for a server of an mcp_servers_file (Source set) the values already
	// expanded by core/mcpfile; for a plugin's (Plugin set) the values as the plugin wrote
	// them, never expanded. Never printed: Status and reviews show the names only.
	Headers map[string]string `json:"-"`
	// AllowPrivate lets a URL whose host is a name reach the private, loopback and
	// link-local ranges (a literal address or localhost reaches exactly what it names
	// without it).
	AllowPrivate bool `json:"allow_private,omitempty"`
	// Source is the mcp_servers_file the server was read from, "" for config.toml's own
	// tables and a plugin's servers.
	Source string            `json:"source,omitempty"`
	Args   []string          `json:"args,omitempty"`
	Env    map[string]string `json:"env,omitempty"`
	// Cwd is the server's working folder; "" runs it in the caller's workspace.
	Cwd      string   `json:"cwd,omitempty"`
	Approval string   `json:"approval"`
	Tools    []string `json:"tools,omitempty"` // the allow-list of wire tool names; empty allows every tool
	TimeoutS int      `json:"timeout_s"`
	// MaxResultBytes bounds the JSON of one tool result of this server.
	MaxResultBytes int `json:"max_result_bytes"`
	// Plugin is the plugin that brought the server (its .mcp.json), "" for config.toml's.
	Plugin string `json:"plugin,omitempty"`
}

// Identity is the digest a server is known by (the gate's keys and a review's token are
// bound to it): for a stdio server the sha256 of its command, its arguments, the names of
// the variables it sets (not their values) and its working folder; for a remote one of its
// transport, URL, the names of its headers (not their values) and allow_private.
func (s MCPServer) Identity() string {
	if s.Remote() {
		b, _ := json.Marshal(struct {
			Transport    string   `json:"transport"`
			URL          string   `json:"url"`
			Headers      []string `json:"headers"`
			AllowPrivate bool     `json:"allow_private"`
		}{s.Transport, s.URL, s.HeaderNames(), s.AllowPrivate})
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:])
	}
	return MCPIdentity(s.Command, s.Args, slices.Sorted(maps.Keys(s.Env)), s.Cwd)
}

// Remote reports whether the server is reached over HTTP rather than spawned.
func (s MCPServer) Remote() bool { return s.Transport == MCPHTTP || s.Transport == MCPSSE }

// HeaderNames are the names of the server's headers, sorted (never their values).
func (s MCPServer) HeaderNames() []string {
	out := slices.Sorted(maps.Keys(s.Headers))
	if out == nil {
		out = []string{}
	}
	return out
}

// Line is the server as one line for a person: its command and arguments, or its
// transport and URL.
func (s MCPServer) Line() string {
	if s.Remote() {
		return s.Transport + " " + s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// MCPIdentity is [MCPServer.Identity] of its parts; envNames must be sorted.
func MCPIdentity(command string, args, envNames []string, cwd string) string {
	b, _ := json.Marshal(struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		Env     []string `json:"env"`
		Cwd     string   `json:"cwd"`
	}{command, append([]string{}, args...), append([]string{}, envNames...), cwd})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Allowed reports whether the server's allow-list admits the wire tool name.
func (s MCPServer) Allowed(tool string) bool {
	return len(s.Tools) == 0 || slices.Contains(s.Tools, tool)
}

type mcpTOML struct {
	Servers map[string]mcpServerTOML `toml:"servers"`
}

type mcpServerTOML struct {
	Command        *string           `toml:"command"`
	URL            *string           `toml:"url"`
	Type           *string           `toml:"type"`
	Headers        map[string]string `toml:"headers"`
	AllowPrivate   *bool             `toml:"allow_private"`
	Args           []string          `toml:"args"`
	Env            map[string]string `toml:"env"`
	Cwd            *string           `toml:"cwd"`
	Approval       *string           `toml:"approval"`
	Tools          []string          `toml:"tools"`
	TimeoutS       *int64            `toml:"timeout_s"`
	MaxResultBytes *int64            `toml:"max_result_bytes"`
}

// envNameRE is an environment variable's name as a server's env table may set it.
var envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// resolveMCP checks the [mcp.servers.<name>] tables and applies their defaults.
func resolveMCP(path string, m mcpTOML) (map[string]MCPServer, error) {
	out := map[string]MCPServer{}
	if len(m.Servers) > MaxMCPServers {
		return nil, &Error{Path: path, Key: "mcp.servers", Reason: fmt.Sprintf("%d servers; at most %d may be configured", len(m.Servers), MaxMCPServers)}
	}
	names := make([]string, 0, len(m.Servers))
	for n := range m.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		s := m.Servers[name]
		bad := func(key, reason string) error {
			k := "mcp.servers." + name
			if key != "" {
				k += "." + key
			}
			return &Error{Path: path, Key: k, Reason: reason}
		}
		if !ValidMCPName(name) {
			return nil, bad("", fmt.Sprintf("server name %q must match ^[a-z][a-z0-9-]{0,31}$ (a lower-case letter, then up to 31 lower-case letters, digits or -; no _)", name))
		}
		srv := MCPServer{Name: name, Transport: MCPStdio, Args: s.Args, Env: s.Env, Tools: s.Tools, Approval: MCPApprovalAsk,
			TimeoutS: DefaultMCPTimeoutS, MaxResultBytes: DefaultMCPResultBytes}
		if s.URL != nil {
			if s.Command != nil || s.Args != nil || s.Env != nil || s.Cwd != nil {
				return nil, bad("url", "a server has a command (a local server) or a url (a remote one), not both; drop command, args, env and cwd, or the url")
			}
			srv.Transport, srv.URL = MCPHTTP, *s.URL
			if s.Type != nil {
				srv.Transport = *s.Type
			}
			srv.AllowPrivate = s.AllowPrivate != nil && *s.AllowPrivate
			if err := CheckRemoteMCP(&srv, s.Headers, "${env:NAME}"); err != nil {
				var re *RemoteMCPError
				if errors.As(err, &re) {
					return nil, bad(re.Key, re.Reason)
				}
				return nil, bad("url", err.Error())
			}
		} else {
			if s.Headers != nil || s.AllowPrivate != nil {
				return nil, bad("headers", "headers and allow_private are for a remote server (url = \"https://…\"); a stdio server gets env instead")
			}
			if s.Type != nil && *s.Type != MCPStdio {
				return nil, bad("type", fmt.Sprintf("type = %q needs a url; a server with a command is \"stdio\"", *s.Type))
			}
			if s.Command == nil || strings.TrimSpace(*s.Command) == "" {
				return nil, bad("command", "a server needs a command (a program name found on PATH, or an absolute path; write command = \"npx\" or similar) or a url (url = \"https://…/mcp\")")
			}
			srv.Command = *s.Command
			if strings.ContainsRune(srv.Command, '/') && !filepath.IsAbs(srv.Command) {
				return nil, bad("command", fmt.Sprintf("%q is a relative path; write an absolute path or a program name found on PATH", srv.Command))
			}
			for k := range s.Env {
				if !envNameRE().MatchString(k) {
					return nil, bad("env", fmt.Sprintf("%q is not an environment variable name (letters, digits and _, not starting with a digit)", k))
				}
			}
			if s.Cwd != nil {
				if !filepath.IsAbs(*s.Cwd) {
					return nil, bad("cwd", fmt.Sprintf("%q must be an absolute path; leave cwd out to run the server in the workspace", *s.Cwd))
				}
				srv.Cwd = filepath.Clean(*s.Cwd)
			}
		}
		if s.Approval != nil {
			switch *s.Approval {
			case MCPApprovalAsk, MCPApprovalAuto:
				srv.Approval = *s.Approval
			default:
				return nil, bad("approval", fmt.Sprintf("%q is not an approval; use \"ask\" (the default) or \"auto\"", *s.Approval))
			}
		}
		for _, t := range s.Tools {
			if t == "" {
				return nil, bad("tools", "an empty tool name; list the server's tool names as it spells them")
			}
		}
		if s.TimeoutS != nil {
			if v := *s.TimeoutS; v < 1 || v > MaxMCPTimeoutS {
				return nil, bad("timeout_s", fmt.Sprintf("%d is out of range; use a value from 1 to %d (seconds)", v, MaxMCPTimeoutS))
			}
			srv.TimeoutS = int(*s.TimeoutS)
		}
		if s.MaxResultBytes != nil {
			if v := *s.MaxResultBytes; v < 1024 || v > MaxMCPResultBytes {
				return nil, bad("max_result_bytes", fmt.Sprintf("%d is out of range; use a value from 1024 to %d (bytes)", v, MaxMCPResultBytes))
			}
			srv.MaxResultBytes = int(*s.MaxResultBytes)
		}
		out[name] = srv
	}
	return out, nil
}

// MCPNames returns the names of the configured MCP servers, sorted.
func (c *Config) MCPNames() []string {
	names := make([]string, 0, len(c.MCP))
	for n := range c.MCP {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// RemoteMCPError is a remote server's field that [CheckRemoteMCP] refuses: its key under the
// server's table ("url", "type", "headers.NAME") and why.
type RemoteMCPError struct{ Key, Reason string }

func (e *RemoteMCPError) Error() string { return e.Key + ": " + e.Reason }

// CheckRemoteMCP checks a remote server's transport and URL (http or https, a host, no user
// information or fragment) and its headers (each name one a proxy may send, each value one
// line), and sets srv.Headers to them, names canonical. refs says how a value may name a
// variable, for the error about a ${…} the client will not expand ("" when the values are
// already expanded).
func CheckRemoteMCP(srv *MCPServer, headers map[string]string, refs string) error {
	switch srv.Transport {
	case MCPHTTP, MCPSSE:
	default:
		return &RemoteMCPError{"type", fmt.Sprintf("%q is not a transport of a server with a url; use \"http\" (Streamable HTTP, the default) or \"sse\" (the legacy transport)", srv.Transport)}
	}
	u, err := url.Parse(srv.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Opaque != "":
		return &RemoteMCPError{"url", fmt.Sprintf("%q is not an http or https URL; write the server's endpoint, e.g. https://mcp.example.com/mcp", srv.URL)}
	case u.User != nil:
		return &RemoteMCPError{"url", "the URL holds user information; give a credential as a header instead (headers = {Authorization = \"Bearer ${env:TOKEN}\"})"}
	case u.Fragment != "":
		return &RemoteMCPError{"url", "the URL holds a #fragment; write the endpoint without it"}
	}
	srv.Headers = nil
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		if why := badHeaderName(name); why != "" {
			return &RemoteMCPError{"headers." + name, why}
		}
		v := headers[name]
		if strings.ContainsAny(v, "\r\n\x00") {
			return &RemoteMCPError{"headers." + name, "the value holds a line break or NUL; a header value is one line"}
		}
		if refs != "" {
			if rest := envRef().ReplaceAllString(v, ""); strings.Contains(rest, "${") {
				return &RemoteMCPError{"headers." + name, "the value has a ${…} that is not " + refs}
			}
		}
		if srv.Headers == nil {
			srv.Headers = map[string]string{}
		}
		srv.Headers[textproto.CanonicalMIMEHeaderKey(name)] = v
	}
	return nil
}
