package mcpfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/inert"
)

// MaxFileBytes bounds one file.
const MaxFileBytes = 1 << 20

// The formats of a file (File.Format).
const (
	ClaudeCode = "claude-code" // .mcp.json: {"mcpServers": {…}}
	VSCode     = "vscode"      // .vscode/mcp.json: {"servers": {…}, "inputs": […]}
)

// ErrFile is matched by every error of this package; a case of errdefs.ErrInvalidInput.
var ErrFile = errdefs.New(errdefs.ErrInvalidInput, "not a usable MCP servers file")

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrFile, fmt.Sprintf(format, args...))
}

// Server is one server of a file as written, nothing expanded.
type Server struct {
	Name    string
	Type    string // stdio, http or sse (the default applied)
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string // VS Code's cwd, "" when not given
	URL     string
	Headers map[string]string
}

// File is a decoded file.
type File struct {
	Format  string
	Servers []Server // sorted by name
	Inputs  []string // VS Code's input ids
}

type serverJSON struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	EnvFile *json.RawMessage  `json:"envFile"`
}

// Decode reads data as a Claude Code .mcp.json or a VS Code mcp.json.
func Decode(data []byte) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, bad("the file is %d bytes; at most %d", len(data), MaxFileBytes)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, bad("not a JSON object (%v); write {\"mcpServers\": {\"name\": {\"command\": \"…\"}}}", err)
	}
	claude, hasClaude := top["mcpServers"]
	vs, hasVS := top["servers"]
	f := &File{}
	var raw json.RawMessage
	switch {
	case hasClaude && hasVS:
		return nil, bad("it has both mcpServers (Claude Code's .mcp.json) and servers (VS Code's mcp.json); keep one")
	case hasClaude:
		f.Format, raw = ClaudeCode, claude
	case hasVS:
		f.Format, raw = VSCode, vs
		if in, ok := top["inputs"]; ok {
			var inputs []struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(in, &inputs); err != nil {
				return nil, bad("inputs is not a list of objects with an id (%v)", err)
			}
			for _, i := range inputs {
				f.Inputs = append(f.Inputs, i.ID)
			}
		}
	default:
		return nil, bad("it has neither mcpServers (Claude Code's .mcp.json) nor servers (VS Code's mcp.json)")
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil || servers == nil {
		return nil, bad("%s is not an object of servers by name", topKey(f.Format))
	}
	if len(servers) > config.MaxMCPServers {
		return nil, bad("%d servers; at most %d", len(servers), config.MaxMCPServers)
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s, err := decodeServer(name, servers[name])
		if err != nil {
			return nil, err
		}
		f.Servers = append(f.Servers, s)
	}
	return f, nil
}

func topKey(format string) string {
	if format == VSCode {
		return "servers"
	}
	return "mcpServers"
}

func decodeServer(name string, raw json.RawMessage) (Server, error) {
	if err := inert.Check(name); err != nil {
		return Server{}, bad("a server's name: %v", err)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return Server{}, bad("server %q is not an object; write {\"command\": \"…\"} or {\"url\": \"…\"}", name)
	}
	var j serverJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Server{}, bad("server %q: %s is a JSON %s; it must be %s", name, te.Field, te.Value, jsonKind(te.Type.String()))
		}
		return Server{}, bad("server %q: %v", name, err)
	}
	if j.EnvFile != nil {
		return Server{}, bad("server %q: envFile is not read by cwx; put the variables the server needs in env", name)
	}
	s := Server{Name: name, Type: j.Type, Command: j.Command, Args: j.Args, Env: j.Env, Cwd: j.Cwd, URL: j.URL, Headers: j.Headers}
	if (s.Command == "") == (s.URL == "") {
		return Server{}, bad("server %q needs a command (a local server) or a url (a remote one), not both or neither", name)
	}
	switch {
	case s.Type == "" && s.Command != "":
		s.Type = config.MCPStdio
	case s.Type == "":
		s.Type = config.MCPHTTP
	case s.Type != config.MCPStdio && s.Type != config.MCPHTTP && s.Type != config.MCPSSE:
		return Server{}, bad("server %q: type %q is not stdio, http or sse", name, s.Type)
	case s.Type == config.MCPStdio && s.Command == "":
		return Server{}, bad("server %q: type stdio needs a command", name)
	case s.Type != config.MCPStdio && s.URL == "":
		return Server{}, bad("server %q: type %s needs a url", name, s.Type)
	}
	if s.Command == "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "") {
		return Server{}, bad("server %q: args, env and cwd are a local server's; a remote one has url and headers", name)
	}
	if s.URL == "" && len(s.Headers) > 0 {
		return Server{}, bad("server %q: headers are a remote server's; a local one gets env", name)
	}
	strs := []string{s.Type, s.Command, s.Cwd, s.URL}
	strs = append(strs, s.Args...)
	for k, v := range s.Env {
		strs = append(strs, k, v)
	}
	for k, v := range s.Headers {
		strs = append(strs, k, v)
	}
	for _, x := range strs {
		if err := inert.Check(x); err != nil {
			return Server{}, bad("server %q: %v", name, err)
		}
	}
	return s, nil
}

func jsonKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "map["):
		return "an object of strings"
	case strings.HasPrefix(goType, "[]"):
		return "a list of strings"
	}
	return "a string"
}

// Vars are what Expand resolves: the environment's variables and VS Code's folder.
type Vars struct {
	Lookup func(name string) (string, bool)
	// WorkspaceFolder is the folder the file belongs to: VS Code's ${workspaceFolder} (the
	// folder holding .vscode/), and where a stdio server runs.
	WorkspaceFolder string
}

// Entry is one server of a file, expanded.
type Entry struct {
	Name   string // as written in the file
	Server config.MCPServer
}

var (
	claudeRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
	vscodeRef = regexp.MustCompile(`\$\{([^}]*)\}`)
)

// Expand resolves f's variables with v and returns its servers, sorted by name.
func (f *File) Expand(v Vars) ([]Entry, error) {
	if v.Lookup == nil {
		v.Lookup = os.LookupEnv
	}
	out := make([]Entry, 0, len(f.Servers))
	for _, s := range f.Servers {
		e, err := f.expandServer(s, v)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (f *File) expandServer(s Server, v Vars) (Entry, error) {
	var err error
	x := func(field, in string) string {
		if err != nil {
			return ""
		}
		var out string
		out, err = f.expand(in, v)
		if err != nil {
			err = bad("server %q: %s: %v", s.Name, field, err)
		}
		return out
	}
	srv := config.MCPServer{Transport: s.Type}
	if s.Type == config.MCPStdio {
		srv.Command = x("command", s.Command)
		for i, a := range s.Args {
			srv.Args = append(srv.Args, x(fmt.Sprintf("args[%d]", i), a))
		}
		if len(s.Env) > 0 {
			srv.Env = map[string]string{}
			for _, k := range slices.Sorted(maps.Keys(s.Env)) {
				srv.Env[k] = x("env."+k, s.Env[k])
			}
		}
		srv.Cwd = x("cwd", s.Cwd)
		if err != nil {
			return Entry{}, err
		}
		if srv.Cwd == "" {
			srv.Cwd = v.WorkspaceFolder
		} else if !filepath.IsAbs(srv.Cwd) {
			return Entry{}, bad("server %q: cwd must be an absolute path (or start with ${workspaceFolder})", s.Name)
		}
		if strings.ContainsRune(srv.Command, '/') && !filepath.IsAbs(srv.Command) {
			srv.Command = filepath.Join(v.WorkspaceFolder, srv.Command)
		}
		return Entry{Name: s.Name, Server: srv}, nil
	}
	srv.URL = x("url", s.URL)
	headers := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		headers[k] = x("headers."+k, s.Headers[k])
	}
	if err != nil {
		return Entry{}, err
	}
	if err := config.CheckRemoteMCP(&srv, headers, ""); err != nil {
		var re *config.RemoteMCPError
		if errors.As(err, &re) && re.Key == "url" {
			// The reason quotes the URL, which may hold an expanded secret.
			return Entry{}, bad("server %q: url: after expansion it is not an http or https URL with a host and no user information or #fragment", s.Name)
		}
		return Entry{}, bad("server %q: %v", s.Name, err)
	}
	return Entry{Name: s.Name, Server: srv}, nil
}

// expand resolves one string in f's format.
func (f *File) expand(in string, v Vars) (string, error) {
	var err error
	if f.Format == ClaudeCode {
		out := claudeRef.ReplaceAllStringFunc(in, func(m string) string {
			sub := claudeRef.FindStringSubmatch(m)
			if val, ok := v.Lookup(sub[1]); ok {
				return val
			}
			if sub[2] != "" {
				return sub[3]
			}
			if err == nil {
				err = fmt.Errorf("${%s} is not set and has no default; set it in the environment cwx runs in, or write ${%s:-default}", sub[1], sub[1])
			}
			return ""
		})
		return out, err
	}
	out := vscodeRef.ReplaceAllStringFunc(in, func(m string) string {
		ref := vscodeRef.FindStringSubmatch(m)[1]
		kind, arg, _ := strings.Cut(ref, ":")
		fail := func(e error) string {
			if err == nil {
				err = e
			}
			return ""
		}
		switch {
		case ref == "workspaceFolder":
			return v.WorkspaceFolder
		case ref == "userHome":
			h, herr := os.UserHomeDir()
			if herr != nil {
				return fail(fmt.Errorf("${userHome}: %v", herr))
			}
			return h
		case ref == "pathSeparator":
			return string(filepath.Separator)
		case kind == "env" && arg != "":
			if val, ok := v.Lookup(arg); ok {
				return val
			}
			return fail(fmt.Errorf("${env:%s} is not set; set it in the environment cwx runs in", arg))
		case kind == "input":
			return fail(fmt.Errorf("${input:%s} asks VS Code to prompt for a value, which cwx cannot do; write the value or an ${env:NAME}", arg))
		}
		return fail(fmt.Errorf("${%s} is not expanded by cwx (it knows ${env:NAME}, ${workspaceFolder}, ${userHome} and ${pathSeparator})", ref))
	})
	return out, err
}
