package ccplugin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/inert"
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
}

// Line is the server as one line for a person: its command and arguments, or its URL.
func (s MCPServer) Line() string {
	if s.URL != "" {
		return strings.TrimSpace(s.Type + " " + s.URL)
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// ParseMCP reads .mcp.json: {"mcpServers": {name: {command, args?, env?} | {type?, url}}},
// servers sorted by name.
func ParseMCP(data []byte) ([]MCPServer, error) {
	var f struct {
		Servers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			Type    string            `json:"type"`
			URL     string            `json:"url"`
		} `json:"mcpServers"`
	}
	if err := decodeOne(data, &f); err != nil {
		return nil, &Error{File: MCPFile, Reason: fmt.Sprintf("not Claude Code's .mcp.json (%v); write {\"mcpServers\": {\"name\": {\"command\": \"...\", \"args\": []}}}", err)}
	}
	var out []MCPServer
	for name, s := range f.Servers {
		srv := MCPServer{Name: name, Command: s.Command, Args: s.Args, Type: s.Type, URL: s.URL, EnvValues: s.Env}
		for k := range s.Env {
			srv.Env = append(srv.Env, k)
		}
		slices.Sort(srv.Env)
		for _, t := range append([]string{name, s.Command, s.Type, s.URL}, append(s.Args, srv.Env...)...) {
			if err := inert.Check(t); err != nil {
				return nil, &Error{File: MCPFile, Reason: fmt.Sprintf("server %q: %v", name, err)}
			}
		}
		if (s.Command == "") == (s.URL == "") {
			return nil, &Error{File: MCPFile, Reason: fmt.Sprintf("server %q needs a command (a local server) or a url (a remote one), not both or neither", name)}
		}
		out = append(out, srv)
	}
	slices.SortFunc(out, func(a, b MCPServer) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
