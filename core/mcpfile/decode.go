package mcpfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Bounds of what is read.
const (
	MaxFileBytes = 1 << 20 // one file
	MaxInputs    = 64      // VS Code's inputs of one file
	// MaxExpanded bounds one string after expansion (a command, an argument, a value).
	MaxExpanded = 256 << 10
)

// Format is the tool whose file format a file is in.
type Format string

// The formats Decode reads.
const (
	ClaudeCode Format = "claude-code" // Claude Code's .mcp.json: {"mcpServers": {…}}
	VSCode     Format = "vscode"      // VS Code's .vscode/mcp.json: {"servers": {…}, "inputs": […]}
)

// File is a decoded file: its servers with their values as written, ${…} unexpanded.
type File struct {
	Format  Format
	Servers []Server // sorted by name
	Inputs  []Input  // VS Code's inputs, in the file's order
}

// Server is one server of a file, as written.
type Server struct {
	Name string
	// Type is the type as written, "" when the file leaves it out; Transport is what it
	// means: config.MCPStdio, config.MCPHTTP or config.MCPSSE.
	Type      string
	Transport string
	Command   string
	Args      []string
	Env       map[string]string
	// Cwd is VS Code's cwd, "" when not written (Claude Code's format has none).
	Cwd     string
	URL     string
	Headers map[string]string
}

// Remote reports whether the server is reached over HTTP rather than spawned.
func (s Server) Remote() bool { return s.Transport != config.MCPStdio }

// Input is one of VS Code's inputs: a value VS Code asks the person for.
type Input struct {
	ID, Type, Description string
}

// ErrFile is matched by every error of Decode, DecodePlugin and Expand (each an *[Error]).
var ErrFile = errors.New("not a usable MCP servers file")

// Error is a file refused: the server and field it is about ("" for the file as a whole)
// and what to write instead. It never holds a variable's value.
type Error struct {
	Server string // the server's name as written
	Key    string // the field: "command", "args[1]", "env.NAME", "headers.NAME", …
	Reason string
}

func (e *Error) Error() string {
	switch {
	case e.Server == "" && e.Key == "":
		return e.Reason
	case e.Server == "":
		return e.Key + ": " + e.Reason
	case e.Key == "":
		return fmt.Sprintf("server %q %s", e.Server, e.Reason)
	}
	return fmt.Sprintf("server %q: %s: %s", e.Server, e.Key, e.Reason)
}

func (e *Error) Unwrap() error { return ErrFile }

const (
	claudeExample = `{"mcpServers": {"NAME": {"command": "npx", "args": ["-y", "PACKAGE"]}}}`
	vscodeExample = `{"servers": {"NAME": {"type": "stdio", "command": "npx", "args": ["-y", "PACKAGE"]}}}`
)

// Decode reads an MCP config file a user already has: Claude Code's .mcp.json (a top-level
// "mcpServers") or VS Code's .vscode/mcp.json (a top-level "servers", and "inputs").
func Decode(data []byte) (*File, error) {
	top, err := topObject(data)
	if err != nil {
		return nil, err
	}
	cc, hasCC := top["mcpServers"]
	vs, hasVS := top["servers"]
	switch {
	case hasCC && hasVS:
		return nil, &Error{Reason: `the file has both "mcpServers" (Claude Code's .mcp.json) and "servers" (VS Code's mcp.json); keep one of them`}
	case hasCC:
		return decodeServers(ClaudeCode, "mcpServers", cc, nil)
	case hasVS:
		inputs, err := decodeInputs(top["inputs"])
		if err != nil {
			return nil, err
		}
		return decodeServers(VSCode, "servers", vs, inputs)
	}
	return nil, &Error{Reason: "the file has neither \"mcpServers\" nor \"servers\"; write Claude Code's " + claudeExample + " or VS Code's " + vscodeExample}
}

// DecodePlugin reads a Claude Code plugin's .mcp.json: {"mcpServers": {…}}, or the servers
// at the top level, as Claude Code's plugins also write it; {} has no servers.
func DecodePlugin(data []byte) (*File, error) {
	top, err := topObject(data)
	if err != nil {
		return nil, err
	}
	if raw, ok := top["mcpServers"]; ok {
		return decodeServers(ClaudeCode, "mcpServers", raw, nil)
	}
	if _, ok := top["servers"]; ok {
		return nil, &Error{Reason: "a plugin's .mcp.json is Claude Code's, not VS Code's {\"servers\": …}; write " + claudeExample}
	}
	return serverMap(ClaudeCode, "", top, nil)
}

// topObject checks data's bounds and encoding and returns its top-level object, VS Code's
// comments and trailing commas allowed.
func topObject(data []byte) (map[string]json.RawMessage, error) {
	if len(data) > MaxFileBytes {
		return nil, &Error{Reason: fmt.Sprintf("the file is %d bytes; at most %d are read", len(data), MaxFileBytes)}
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !utf8.Valid(data) {
		return nil, &Error{Reason: "the file is not UTF-8 text; save it as UTF-8"}
	}
	text := plain(data)
	dec := json.NewDecoder(bytes.NewReader(text))
	var raw json.RawMessage
	err := dec.Decode(&raw)
	if err == nil {
		if _, e := dec.Token(); e != io.EOF {
			err = errors.New("data after the JSON value")
		}
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, int(se.Offset)-1)
			err = fmt.Errorf("%v at line %d, column %d", se, line, col)
		}
		return nil, &Error{Reason: fmt.Sprintf("not a JSON object (%v); write %s", err, claudeExample)}
	}
	if kind(raw) != '{' {
		return nil, &Error{Reason: "not a JSON object; write " + claudeExample}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, &Error{Reason: fmt.Sprintf("not a JSON object (%v); write %s", err, claudeExample)}
	}
	return top, nil
}

// decodeServers reads the object of servers under key.
func decodeServers(f Format, key string, raw json.RawMessage, inputs []Input) (*File, error) {
	example := claudeExample
	if f == VSCode {
		example = vscodeExample
	}
	var m map[string]json.RawMessage
	if kind(raw) != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, &Error{Key: key, Reason: "must be an object of servers by name; write " + example}
	}
	return serverMap(f, key, m, inputs)
}

func serverMap(f Format, key string, m map[string]json.RawMessage, inputs []Input) (*File, error) {
	if len(m) > config.MaxMCPServers {
		return nil, &Error{Key: key, Reason: fmt.Sprintf("%d servers; at most %d are read from one file", len(m), config.MaxMCPServers)}
	}
	out := &File{Format: f, Inputs: inputs}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if name == "" {
			return nil, &Error{Key: key, Reason: "a server has an empty name; name it"}
		}
		if err := inert.Check(name); err != nil {
			return nil, &Error{Key: key, Reason: fmt.Sprintf("the server name %q %v; rename it", name, err)}
		}
		s, err := decodeServer(f, name, m[name])
		if err != nil {
			return nil, err
		}
		out.Servers = append(out.Servers, s)
	}
	return out, nil
}

// envNameRE is an environment variable's name as a server's env may set it (config.toml's
// rule).
var envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// examples are what each field looks like, for the errors.
var examples = map[string]string{
	"type":    `"type": "http"`,
	"command": `"command": "npx"`,
	"args":    `"args": ["-y", "PACKAGE"]`,
	"env":     `"env": {"NAME": "value"}`,
	"cwd":     `"cwd": "${workspaceFolder}"`,
	"url":     `"url": "https://mcp.example.com/mcp"`,
	"headers": `"headers": {"Authorization": "Bearer ${TOKEN}"}`,
}

// decodeServer reads one server. Keys the tools accept and cwx has no use for are
// ignored; a key whose meaning cwx would silently drop while it changes what runs or is
// sent is refused by name.
func decodeServer(f Format, name string, raw json.RawMessage) (Server, error) {
	s := Server{Name: name}
	var m map[string]json.RawMessage
	if kind(raw) != '{' || json.Unmarshal(raw, &m) != nil {
		return s, &Error{Server: name, Reason: `is not an object; write {"command": "npx", "args": […]} for a local server or {"type": "http", "url": "https://…"} for a remote one`}
	}
	r := reader{server: name, m: m, numbers: f == VSCode}
	if err := refused(f, r); err != nil {
		return s, err
	}
	_, hasCmd := m["command"]
	_, hasURL := m["url"]
	if hasCmd == hasURL {
		return s, &Error{Server: name, Reason: `needs a command (a local server) or a url (a remote one), not both or neither; write "command": "npx" with its "args", or "url": "https://…/mcp"`}
	}
	var err error
	if s.Type, err = r.str("type"); err != nil {
		return s, err
	}
	if s.Transport, err = transport(name, s.Type, hasCmd); err != nil {
		return s, err
	}
	if hasCmd {
		return s, r.stdio(f, &s)
	}
	return s, r.remote(f, &s)
}

// refused are the keys of a format cwx will not ignore.
func refused(f Format, r reader) error {
	if f == ClaudeCode {
		if _, ok := r.m["headersHelper"]; ok {
			return r.bad("headersHelper", "runs a command for the headers, which cwx does not; write them under \"headers\", a secret as ${NAME} from the environment cwx runs in")
		}
		return nil
	}
	if _, ok := r.m["envFile"]; ok {
		return r.bad("envFile", "loads variables from a file, which cwx does not read; write them under \"env\", a secret as ${env:NAME} from the environment cwx runs in")
	}
	if raw, ok := r.m["sandboxEnabled"]; ok && string(bytes.TrimSpace(raw)) != "false" {
		return r.bad("sandboxEnabled", "asks VS Code to run the server in its sandbox, which cwx does not have; remove it to run the server unsandboxed once reviewed and trusted")
	}
	return nil
}

// transport is what a server's type means; hasCmd says it has a command (else a url).
func transport(name, typ string, hasCmd bool) (string, error) {
	bad := func(reason string) error { return &Error{Server: name, Key: "type", Reason: reason} }
	switch typ {
	case "":
		if hasCmd {
			return config.MCPStdio, nil
		}
		return config.MCPHTTP, nil
	case config.MCPStdio:
		if !hasCmd {
			return "", bad(`"stdio" needs a command; a server with a url is "http" (Streamable HTTP) or "sse"`)
		}
		return typ, nil
	case config.MCPHTTP, config.MCPSSE:
		if hasCmd {
			return "", bad(fmt.Sprintf(`%q needs a url; a server with a command is "stdio"`, typ))
		}
		return typ, nil
	case "ws":
		return "", bad(`"ws" (WebSocket) is not a transport cwx speaks; use "http" (Streamable HTTP) or "sse" if the server offers one`)
	}
	return "", bad(fmt.Sprintf(`%q is not a type cwx reads; write "stdio" (with a command), "http" (Streamable HTTP, with a url) or "sse" (the legacy transport, with a url)`, typ))
}

// stdio reads a local server's fields.
func (r reader) stdio(f Format, s *Server) error {
	var err error
	if s.Command, err = r.str("command"); err != nil {
		return err
	}
	if strings.TrimSpace(s.Command) == "" {
		return r.bad("command", "is empty; write the program to run, e.g. "+examples["command"])
	}
	if s.Args, err = r.strs("args"); err != nil {
		return err
	}
	if s.Env, err = r.strMap("env"); err != nil {
		return err
	}
	for k := range s.Env {
		if !envNameRE().MatchString(k) {
			return r.bad("env", fmt.Sprintf("%q is not an environment variable name (letters, digits and _, not starting with a digit)", k))
		}
	}
	if f == VSCode {
		if s.Cwd, err = r.str("cwd"); err != nil {
			return err
		}
	}
	if h, err := r.strMap("headers"); err != nil {
		return err
	} else if len(h) > 0 {
		return r.bad("headers", "are for a server with a url; a local server gets \"env\" instead")
	}
	return nil
}

// remote reads a remote server's fields.
func (r reader) remote(f Format, s *Server) error {
	var err error
	if s.URL, err = r.str("url"); err != nil {
		return err
	}
	if strings.TrimSpace(s.URL) == "" {
		return r.bad("url", "is empty; write the server's endpoint, e.g. "+examples["url"])
	}
	if s.Headers, err = r.strMap("headers"); err != nil {
		return err
	}
	args, err := r.strs("args")
	if err != nil {
		return err
	}
	env, err := r.strMap("env")
	if err != nil {
		return err
	}
	cwd := ""
	if f == VSCode {
		if cwd, err = r.str("cwd"); err != nil {
			return err
		}
	}
	if len(args) > 0 || len(env) > 0 || cwd != "" {
		return r.bad("url", "a server with a url is remote: args, env and cwd are for a local server (one with a command); drop them, or the url")
	}
	return nil
}

// decodeInputs reads VS Code's inputs: their ids, types and descriptions (the rest is for
// VS Code's prompt).
func decodeInputs(raw json.RawMessage) ([]Input, error) {
	if raw == nil {
		return nil, nil
	}
	bad := func(reason string) error { return &Error{Key: "inputs", Reason: reason} }
	var items []json.RawMessage
	if kind(raw) != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, bad(`must be an array of inputs; write [{"type": "promptString", "id": "api-key", "description": "…"}]`)
	}
	if len(items) > MaxInputs {
		return nil, bad(fmt.Sprintf("%d inputs; at most %d are read", len(items), MaxInputs))
	}
	var out []Input
	for i, item := range items {
		var m map[string]json.RawMessage
		if kind(item) != '{' || json.Unmarshal(item, &m) != nil {
			return nil, bad(fmt.Sprintf(`[%d] is not an object; write {"type": "promptString", "id": "api-key"}`, i))
		}
		r := reader{m: m, prefix: fmt.Sprintf("inputs[%d].", i)}
		var in Input
		var err error
		if in.ID, err = r.str("id"); err != nil {
			return nil, err
		}
		if in.ID == "" {
			return nil, bad(fmt.Sprintf(`[%d] has no id; write "id": "api-key"`, i))
		}
		if in.Type, err = r.str("type"); err != nil {
			return nil, err
		}
		if in.Description, err = r.str("description"); err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// reader reads the fields of one JSON object, each checked for its type and for the
// characters plugin text may not hold (core/inert).
type reader struct {
	server  string
	prefix  string // before each key in an error ("inputs[0].")
	m       map[string]json.RawMessage
	numbers bool // an env value may be a number (VS Code's format)
}

func (r reader) bad(key, reason string) error {
	return &Error{Server: r.server, Key: r.prefix + key, Reason: reason}
}

func (r reader) want(key, what string) error {
	reason := "must be " + what
	if ex, ok := examples[strings.SplitN(key, ".", 2)[0]]; ok && r.prefix == "" {
		reason += "; write " + ex
	}
	return r.bad(key, reason)
}

func (r reader) check(key, s string) error {
	if err := inert.Check(s); err != nil {
		return r.bad(key, err.Error()+"; remove it")
	}
	return nil
}

// str is the string at key, "" when absent.
func (r reader) str(key string) (string, error) {
	raw, ok := r.m[key]
	if !ok {
		return "", nil
	}
	var s string
	if kind(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		return "", r.want(key, "a string")
	}
	return s, r.check(key, s)
}

// strs is the array of strings at key, nil when absent.
func (r reader) strs(key string) ([]string, error) {
	raw, ok := r.m[key]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if kind(raw) != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, r.want(key, "an array of strings")
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		k := fmt.Sprintf("%s[%d]", key, i)
		var s string
		if kind(item) != '"' || json.Unmarshal(item, &s) != nil {
			return nil, r.bad(k, "must be a string; quote it")
		}
		if err := r.check(k, s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// strMap is the object of strings at key (names checked too), nil when absent. Where
// r.numbers, a value may be a number, kept as written.
func (r reader) strMap(key string) (map[string]string, error) {
	raw, ok := r.m[key]
	if !ok {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if kind(raw) != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, r.want(key, "an object of strings")
	}
	out := make(map[string]string, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		k := key + "." + name
		if err := r.check(k, name); err != nil {
			return nil, err
		}
		v := m[name]
		var s string
		switch c := kind(v); {
		case c == '"' && json.Unmarshal(v, &s) == nil:
		case r.numbers && (c == '-' || c >= '0' && c <= '9'):
			s = string(bytes.TrimSpace(v))
		case r.numbers && c == 'n':
			return nil, r.bad(k, "is null (VS Code unsets the variable); cwx gives a server only the variables it names and a few of its own, so drop the entry or give it a value")
		default:
			return nil, r.bad(k, "must be a string; quote it")
		}
		if err := r.check(k, s); err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

// kind is the first byte of a JSON value: '{', '[', '"', 'n', 't', 'f', '-' or a digit.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}
