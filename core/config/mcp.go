package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
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
var mcpNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// ValidMCPName reports whether name is a valid MCP server name.
func ValidMCPName(name string) bool { return mcpNameRE.MatchString(name) }

// MCPServer is one [mcp.servers.<name>] table: a stdio MCP server the core runs. A server
// written in config.toml is the user's decision and needs no review (core/mcpclient).
type MCPServer struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
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
// bound to it): the sha256 of its command, its arguments, the names of the variables it
// sets (not their values) and its working folder.
func (s MCPServer) Identity() string {
	return MCPIdentity(s.Command, s.Args, slices.Sorted(maps.Keys(s.Env)), s.Cwd)
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
	Args           []string          `toml:"args"`
	Env            map[string]string `toml:"env"`
	Cwd            *string           `toml:"cwd"`
	Approval       *string           `toml:"approval"`
	Tools          []string          `toml:"tools"`
	TimeoutS       *int64            `toml:"timeout_s"`
	MaxResultBytes *int64            `toml:"max_result_bytes"`
}

// envNameRE is an environment variable's name as a server's env table may set it.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

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
		srv := MCPServer{Name: name, Args: s.Args, Env: s.Env, Tools: s.Tools, Approval: MCPApprovalAsk,
			TimeoutS: DefaultMCPTimeoutS, MaxResultBytes: DefaultMCPResultBytes}
		if s.Command == nil || strings.TrimSpace(*s.Command) == "" {
			return nil, bad("command", "a server needs a command (a program name found on PATH, or an absolute path); write command = \"npx\" or similar")
		}
		srv.Command = *s.Command
		if strings.ContainsRune(srv.Command, '/') && !filepath.IsAbs(srv.Command) {
			return nil, bad("command", fmt.Sprintf("%q is a relative path; write an absolute path or a program name found on PATH", srv.Command))
		}
		for k := range s.Env {
			if !envNameRE.MatchString(k) {
				return nil, bad("env", fmt.Sprintf("%q is not an environment variable name (letters, digits and _, not starting with a digit)", k))
			}
		}
		if s.Cwd != nil {
			if !filepath.IsAbs(*s.Cwd) {
				return nil, bad("cwd", fmt.Sprintf("%q must be an absolute path; leave cwd out to run the server in the workspace", *s.Cwd))
			}
			srv.Cwd = filepath.Clean(*s.Cwd)
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
