package ccplugin

import (
	"maps"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/mcpfile"
)

// MCPServer is one server of .mcp.json, as the review shows it. cwx starts a stdio one only
// after `cwx mcp review` and `cwx mcp trust` (MCPNotRun; core/mcpclient).
type MCPServer struct {
	Name    string   `json:"name"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Type    string   `json:"type,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Env are the names of the environment variables it sets (their values are not shown).
	Env []string `json:"env,omitempty"`
	// EnvValues are those variables with their values, for running the server once it is
	// trusted (core/mcpclient); never printed.
	EnvValues map[string]string `json:"-"`
	// Headers are the names of a remote server's headers; HeaderValues their values, never
	// printed.
	Headers      []string          `json:"headers,omitempty"`
	HeaderValues map[string]string `json:"-"`
}

// Line is the server as one line for a person: its command and arguments, or its URL.
func (s MCPServer) Line() string {
	if s.URL != "" {
		return strings.TrimSpace(s.Type + " " + s.URL)
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// ParseMCP reads .mcp.json, Claude Code's format as core/mcpfile reads it (one reader of
// the format): {"mcpServers": {name: {command, args?, env?} | {type?, url, headers?}}},
// servers sorted by name, nothing expanded.
func ParseMCP(data []byte) ([]MCPServer, error) {
	f, err := mcpfile.Decode(data)
	if err != nil {
		return nil, &Error{File: MCPFile, Reason: err.Error()}
	}
	if f.Format != mcpfile.ClaudeCode {
		return nil, &Error{File: MCPFile, Reason: "a plugin's .mcp.json is Claude Code's format: its servers go under mcpServers, not servers"}
	}
	var out []MCPServer
	for _, s := range f.Servers {
		srv := MCPServer{Name: s.Name, Command: s.Command, Args: s.Args, EnvValues: s.Env, HeaderValues: s.Headers,
			Env: slices.Sorted(maps.Keys(s.Env)), Headers: slices.Sorted(maps.Keys(s.Headers))}
		if s.URL != "" {
			srv.Type, srv.URL = s.Type, s.URL
		}
		out = append(out, srv)
	}
	return out, nil
}
