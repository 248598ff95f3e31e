package ccplugin

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/mcpfile"
)

// MCPServer is one server of .mcp.json, as the review shows it. cwx starts or reaches one only
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

// ParseMCP reads .mcp.json as core/mcpfile reads a plugin's (the one reader of the format):
// {"mcpServers": {name: {command, args?, env?} | {type?, url, headers?}}}, or those servers
// at the top level as Claude Code's plugins also write them; sorted by name, nothing
// expanded (core/mcpclient puts in ${CLAUDE_PLUGIN_ROOT}).
func ParseMCP(data []byte) ([]MCPServer, error) {
	f, err := mcpfile.DecodePlugin(data)
	if err != nil {
		var e *mcpfile.Error
		if errors.As(err, &e) && e.Server == "" && e.Key == "" {
			return nil, &Error{File: MCPFile, Reason: "not Claude Code's .mcp.json: " + err.Error()}
		}
		return nil, &Error{File: MCPFile, Reason: err.Error()}
	}
	var out []MCPServer
	for _, s := range f.Servers {
		srv := MCPServer{Name: s.Name, Command: s.Command, Args: s.Args, Type: s.Type, EnvValues: s.Env, HeaderValues: s.Headers,
			Env: slices.Sorted(maps.Keys(s.Env)), Headers: slices.Sorted(maps.Keys(s.Headers))}
		if s.Remote() {
			srv.Type, srv.URL = s.Transport, s.URL
		}
		out = append(out, srv)
	}
	return out, nil
}
