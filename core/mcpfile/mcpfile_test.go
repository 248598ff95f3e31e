package mcpfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
)

// env is a Lookup of the pairs kv.
func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func readTestdata(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func byName(es []Entry) map[string]config.MCPServer {
	m := map[string]config.MCPServer{}
	for _, e := range es {
		m[e.Name] = e.Server
	}
	return m
}

// TestClaudeCodeFile reads a Claude Code .mcp.json as its users write one: a stdio server
// with ${HOME} and ${VAR:-default}, an HTTP server whose bearer token is ${API_TOKEN} (and
// an oauth block cwx ignores), an SSE server whose URL has a default.
func TestClaudeCodeFile(t *testing.T) {
	f, err := Decode(readTestdata(t, "claude/.mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != ClaudeCode || len(f.Servers) != 3 || f.Servers[0].Name != "events" || f.Servers[2].Name != "github" {
		t.Fatalf("file = %+v", f)
	}
	fsrv := f.Servers[1]
	if fsrv.Type != "" || fsrv.Transport != config.MCPStdio || fsrv.Args[2] != "${HOME}/projects" || fsrv.Env["LOG_LEVEL"] != "${LOG_LEVEL:-info}" {
		t.Fatalf("decoded values must stay as written: %+v", fsrv)
	}
	es, err := f.Expand(Vars{Lookup: env("HOME", "/home/ada", "API_TOKEN", "tok-123", "LOG_LEVEL", "debug"), WorkspaceFolder: "/proj"})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 || es[0].Name != "events" || es[1].Name != "filesystem" || es[2].Name != "github" {
		t.Fatalf("entries not sorted by name: %+v", es)
	}
	got := byName(es)
	want := map[string]config.MCPServer{
		"filesystem": {Transport: config.MCPStdio, Command: "npx", Cwd: "/proj",
			Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/ada/projects", "/tmp/shared"},
			Env:  map[string]string{"LOG_LEVEL": "debug"}},
		"github": {Transport: config.MCPHTTP, URL: "https://api.githubcopilot.com/mcp/",
			Headers: map[string]string{"Authorization": "Bearer tok-123", "X-Mcp-Toolsets": "repos,issues,pull_requests"}},
		"events": {Transport: config.MCPSSE, URL: "https://events.example.com/sse"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries:\n got %+v\nwant %+v", got, want)
	}
}

// TestVSCodeFile reads a VS Code .vscode/mcp.json with comments, a trailing comma, inputs,
// ${workspaceFolder}, ${env:…}, a number in env and the keys VS Code writes for itself
// (dev, gallery, version); a server that names an ${input:…} is refused, naming the input.
func TestVSCodeFile(t *testing.T) {
	f, err := Decode(readTestdata(t, "vscode/.vscode/mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != VSCode || len(f.Servers) != 4 || !reflect.DeepEqual(f.Inputs, []Input{{ID: "perplexity-key", Type: "promptString", Description: "Perplexity API Key"}}) {
		t.Fatalf("file = %+v", f)
	}
	vars := Vars{Lookup: env("DEBUG_LEVEL", "2", "GITHUB_TOKEN", "ghp-secret", "HOME", "/home/ada"), WorkspaceFolder: "/work/app"}
	_, err = f.Expand(vars)
	for _, s := range []string{`server "perplexity": env.PERPLEXITY_API_KEY: ${input:perplexity-key}`, `"Perplexity API Key"`, "cwx cannot prompt for inputs", "${env:NAME}"} {
		if err == nil || !strings.Contains(err.Error(), s) || !errors.Is(err, ErrFile) {
			t.Fatalf("err = %v, want it to say %q", err, s)
		}
	}
	f.Servers = slicesDelete(f.Servers, "perplexity")
	es, err := f.Expand(vars)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]config.MCPServer{
		"fs": {Transport: config.MCPStdio, Command: "npx", Cwd: "/work/app",
			Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/work/app"},
			Env:  map[string]string{"DEBUG": "2", "PORT": "3000"}},
		"tools": {Transport: config.MCPStdio, Command: "/work/app/bin/tools", Cwd: "/work/app/sub",
			Args: []string{"--home", "/home/ada", "--name", "app"}},
		"github": {Transport: config.MCPHTTP, URL: "https://api.githubcopilot.com/mcp/",
			Headers: map[string]string{"Authorization": "Bearer ghp-secret"}},
	}
	if got := byName(es); !reflect.DeepEqual(got, want) {
		t.Fatalf("entries:\n got %+v\nwant %+v", got, want)
	}
}

func slicesDelete(ss []Server, name string) []Server {
	var out []Server
	for _, s := range ss {
		if s.Name != name {
			out = append(out, s)
		}
	}
	return out
}

// TestDecodeErrors: every refusal names what is wrong and says what to write.
func TestDecodeErrors(t *testing.T) {
	cc := func(server string) string { return `{"mcpServers": {"a": ` + server + `}}` }
	vs := func(server string) string { return `{"servers": {"a": ` + server + `}}` }
	for _, tc := range []struct{ name, file, says string }{
		{"not JSON", `{"mcpServers": `, `not a JSON object (unexpected EOF); write {"mcpServers"`},
		{"syntax error", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": x}\n  }\n}", "at line 3, column 22"},
		{"array", `[]`, `not a JSON object; write {"mcpServers": {"NAME": {"command": "npx"`},
		{"trailing data", `{"mcpServers": {}} {}`, "data after the JSON value"},
		{"not UTF-8", "{\"mcpServers\": {\"a\": {\"command\": \"\xff\"}}}", "not UTF-8 text; save it as UTF-8"},
		{"neither", `{"other": {}}`, `neither "mcpServers" nor "servers"; write Claude Code's {"mcpServers"`},
		{"both", `{"mcpServers": {}, "servers": {}}`, "keep one of them"},
		{"servers not an object", `{"mcpServers": []}`, `mcpServers: must be an object of servers by name; write {"mcpServers"`},
		{"vscode servers null", `{"servers": null}`, `servers: must be an object of servers by name; write {"servers"`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, "mcpServers: a server has an empty name; name it"},
		{"bidi name", `{"mcpServers": {"a\u202e": {"command": "x"}}}`, "holds U+202E at byte 1, a control or bidi character that could change how the text reads on screen; rename it"},
		{"server a string", cc(`"npx"`), `server "a" is not an object; write {"command": "npx"`},
		{"neither command nor url", cc(`{}`), `server "a" needs a command (a local server) or a url (a remote one), not both or neither; write "command": "npx"`},
		{"both command and url", cc(`{"command": "x", "url": "https://x"}`), "not both or neither"},
		{"command not a string", cc(`{"command": ["npx"]}`), `server "a": command: must be a string; write "command": "npx"`},
		{"command empty", cc(`{"command": " "}`), `command: is empty; write the program to run`},
		{"args not a list", cc(`{"command": "x", "args": "y"}`), `args: must be an array of strings; write "args": ["-y", "PACKAGE"]`},
		{"an arg a number", cc(`{"command": "x", "args": ["a", 1]}`), "args[1]: must be a string; quote it"},
		{"env not an object", cc(`{"command": "x", "env": ["A=1"]}`), `env: must be an object of strings; write "env": {"NAME": "value"}`},
		{"claude env number", cc(`{"command": "x", "env": {"PORT": 3000}}`), "env.PORT: must be a string; quote it"},
		{"vscode env null", vs(`{"command": "x", "env": {"PATH": null}}`), "env.PATH: is null (VS Code unsets the variable)"},
		{"env name", cc(`{"command": "x", "env": {"A-B": "1"}}`), `env: "A-B" is not an environment variable name`},
		{"env value escape", cc(`{"command": "x", "env": {"A": "\u001b[2J"}}`), "env.A: holds U+001B at byte 0"},
		{"arg escape", cc(`{"command": "x", "args": ["ok", "\u0007"]}`), "args[1]: holds U+0007 at byte 0"},
		{"headers not strings", cc(`{"url": "https://x", "headers": {"A": 1}}`), "headers.A: must be a string; quote it"},
		{"type ws", cc(`{"url": "wss://x", "type": "ws"}`), `type: "ws" (WebSocket) is not a transport cwx speaks; use "http"`},
		{"type other", cc(`{"command": "x", "type": "local"}`), `type: "local" is not a type cwx reads; write "stdio" (with a command)`},
		{"type not a string", cc(`{"command": "x", "type": 1}`), `type: must be a string; write "type": "http"`},
		{"stdio with url", cc(`{"url": "https://x", "type": "stdio"}`), `type: "stdio" needs a command; a server with a url is "http"`},
		{"http with command", cc(`{"command": "x", "type": "http"}`), `type: "http" needs a url; a server with a command is "stdio"`},
		{"url empty", cc(`{"url": ""}`), "url: is empty; write the server's endpoint"},
		{"remote with env", cc(`{"url": "https://x", "env": {"A": "1"}}`), "args, env and cwd are for a local server"},
		{"vscode remote with cwd", vs(`{"url": "https://x", "cwd": "/w"}`), "args, env and cwd are for a local server"},
		{"local with headers", cc(`{"command": "x", "headers": {"A": "1"}}`), `headers: are for a server with a url; a local server gets "env" instead`},
		{"headersHelper", cc(`{"url": "https://x", "headersHelper": "./h.sh"}`), `headersHelper: runs a command for the headers, which cwx does not; write them under "headers"`},
		{"envFile", vs(`{"command": "x", "envFile": "${workspaceFolder}/.env"}`), `server "a": envFile: loads variables from a file, which cwx does not read; write them under "env"`},
		{"sandboxEnabled", vs(`{"command": "x", "sandboxEnabled": true}`), "sandboxEnabled: asks VS Code to run the server in its sandbox, which cwx does not have; remove it"},
		{"vscode cwd not a string", vs(`{"command": "x", "cwd": 1}`), `cwd: must be a string; write "cwd": "${workspaceFolder}"`},
		{"inputs not a list", `{"servers": {}, "inputs": {}}`, `inputs: must be an array of inputs; write [{"type": "promptString"`},
		{"input not an object", `{"servers": {}, "inputs": ["k"]}`, `inputs: [0] is not an object`},
		{"input without id", `{"servers": {}, "inputs": [{"type": "promptString"}]}`, `inputs: [0] has no id; write "id": "api-key"`},
		{"input id not a string", `{"servers": {}, "inputs": [{"id": 3}]}`, "inputs[0].id: must be a string"},
	} {
		_, err := Decode([]byte(tc.file))
		var e *Error
		if err == nil || !strings.Contains(err.Error(), tc.says) || !errors.Is(err, ErrFile) || !errors.As(err, &e) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.says)
		}
	}
	if _, err := Decode(make([]byte, MaxFileBytes+1)); err == nil || !strings.Contains(err.Error(), "at most 1048576 are read") {
		t.Errorf("a large file: %v", err)
	}
	var many strings.Builder
	many.WriteString(`{"mcpServers": {`)
	for i := range config.MaxMCPServers + 1 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`"s` + strings.Repeat("x", i) + `": {"command": "x"}`)
	}
	many.WriteString("}}")
	if _, err := Decode([]byte(many.String())); err == nil || !strings.Contains(err.Error(), "65 servers; at most 64 are read from one file") {
		t.Errorf("too many servers: %v", err)
	}
}

// TestIgnoredKeys: the keys the tools write for themselves load, and change nothing.
func TestIgnoredKeys(t *testing.T) {
	for _, file := range []string{
		`{"$schema": "x", "mcpServers": {"a": {"command": "x", "description": "d", "oauth": {"clientId": "c"}, "cwd": "/ignored", "timeout": 5}}}`,
		`{"servers": {"a": {"command": "x", "dev": {"watch": "src/**"}, "gallery": "https://g", "version": "1", "sandboxEnabled": false, "sandbox": {}}}}`,
	} {
		f, err := Decode([]byte(file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		es, err := f.Expand(Vars{Lookup: env()})
		if err != nil || len(es) != 1 || !reflect.DeepEqual(es[0].Server, config.MCPServer{Transport: config.MCPStdio, Command: "x"}) {
			t.Fatalf("%s: %+v %v", file, es, err)
		}
	}
}

// TestExpand: each form of both formats, one string at a time.
func TestExpand(t *testing.T) {
	lookup := env("A", "alpha", "B", "beta", "EMPTY", "", "HOME", "/home/ada")
	for _, tc := range []struct {
		format   Format
		in, want string
	}{
		{ClaudeCode, "${A}", "alpha"},
		{ClaudeCode, "x-${A}-${B}-y", "x-alpha-beta-y"},
		{ClaudeCode, "${A:-dflt}", "alpha"},
		{ClaudeCode, "${UNSET:-dflt}", "dflt"},
		{ClaudeCode, "${UNSET:-}", ""},
		{ClaudeCode, "${UNSET:-a:-b}", "a:-b"},
		{ClaudeCode, "${EMPTY:-dflt}", ""}, // set, though empty: Claude Code takes the value
		{ClaudeCode, "${UNSET:-${A}", "${A"},
		{ClaudeCode, "${env:A}", "alpha"},
		{ClaudeCode, "$A ${} ${A", "$A ${} ${A"},
		{ClaudeCode, "${workspaceFolder:-none}", "none"},
		{VSCode, "${env:A}/${env:EMPTY}", "alpha/"},
		{VSCode, "${workspaceFolder}${/}x${pathSeparator}y", "/w/app/x/y"},
		{VSCode, "${workspaceFolderBasename}", "app"},
		{VSCode, "${userHome}/.config", "/home/ada/.config"},
		{VSCode, "$A ${env:A", "$A ${env:A"},
		{VSCode, "${env:A}${env:A}", "alphaalpha"},
	} {
		x := expander{file: &File{Format: tc.format}, vars: Vars{Lookup: lookup, WorkspaceFolder: "/w/app"}, server: "s"}
		got, err := x.expand("args[0]", tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s %q = %q, %v; want %q", tc.format, tc.in, got, err, tc.want)
		}
	}
}

// TestExpandErrors: an expansion that fails names the server, the field and the variable,
// says what to do, and never holds a variable's value.
func TestExpandErrors(t *testing.T) {
	const secret = "s3cr3t-v4lue"
	lookup := env("SECRET", secret, "BAD_URL", "ftp://"+secret+"@host/x", "USER_URL", "https://"+secret+"@host/x",
		"FRAG_URL", "https://host/x#"+secret, "NL", secret+"\nX: y", "NUL", secret+"\x00")
	cc := func(server string) string { return `{"mcpServers": {"a": ` + server + `}}` }
	vs := func(server string) string { return `{"servers": {"a": ` + server + `}}` }
	for _, tc := range []struct {
		name, file, folder, says string
	}{
		{"claude unset", cc(`{"command": "x", "args": ["${UNSET_VAR}"]}`), "",
			`server "a": args[0]: ${UNSET_VAR} is not set; set UNSET_VAR in the environment cwx runs in, or give a default: ${UNSET_VAR:-value}`},
		{"claude unset in a header", cc(`{"url": "https://x/", "headers": {"Authorization": "Bearer ${API_TOKEN}"}}`), "",
			`server "a": headers.Authorization: ${API_TOKEN} is not set`},
		{"claude unset env: form", cc(`{"command": "x", "env": {"K": "${env:UNSET_VAR}"}}`), "", `env.K: ${env:UNSET_VAR} is not set; set UNSET_VAR`},
		{"claude unset in the url", cc(`{"url": "${BASE}/mcp"}`), "", `url: ${BASE} is not set`},
		{"claude unset command", cc(`{"command": "${BIN}"}`), "", `command: ${BIN} is not set`},
		{"empty command", cc(`{"command": "${EMPTY_BIN:-}"}`), "", `command: "${EMPTY_BIN:-}" expands to nothing`},
		{"bad url from a variable", cc(`{"url": "${BAD_URL}"}`), "", `url: "${BAD_URL}" (once expanded) is not an http or https URL`},
		{"user information from a variable", cc(`{"url": "${USER_URL}"}`), "", "url: the URL holds user information; give a credential as a header"},
		{"fragment from a variable", cc(`{"url": "${FRAG_URL}"}`), "", "url: the URL holds a #fragment"},
		{"literal bad url", cc(`{"url": "mailto:x"}`), "", `url: "mailto:x" is not an http or https URL`},
		{"header name", cc(`{"url": "https://x/", "headers": {"Host": "${SECRET}"}}`), "", "headers.Host: "},
		{"header line break", cc(`{"url": "https://x/", "headers": {"A": "${NL}"}}`), "", "headers.A: the value holds a line break or NUL"},
		{"NUL in an arg", cc(`{"command": "x", "args": ["${NUL}"]}`), "", "args[0]: holds a NUL once expanded"},
		{"too long", cc(`{"command": "x", "args": ["${SECRET}` + strings.Repeat("${SECRET}", MaxExpanded/len(secret)) + `"]}`), "", "args[0]: expands to more than 262144 bytes"},
		{"vscode env unset", vs(`{"command": "x", "env": {"K": "${env:UNSET_VAR}"}}`), "/w", `env.K: ${env:UNSET_VAR} is not set; set UNSET_VAR in the environment cwx runs in, or write the value`},
		{"vscode input undeclared", vs(`{"command": "x", "args": ["${input:token}"]}`), "/w", "args[0]: ${input:token} asks VS Code to prompt for a value, and cwx cannot prompt for inputs; write the value, or ${env:NAME}"},
		{"vscode config", vs(`{"command": "x", "args": ["${config:editor.tabSize}"]}`), "/w", "${config:editor.tabSize} reads VS Code's settings, which cwx does not; write the value"},
		{"vscode command", vs(`{"command": "x", "args": ["${command:pickFile}"]}`), "/w", "${command:pickFile} runs a VS Code command, which cwx cannot"},
		{"vscode multi-root", vs(`{"command": "x", "args": ["${workspaceFolder:api}"]}`), "/w", "${workspaceFolder:api} names a folder of a multi-root workspace"},
		{"vscode editor state", vs(`{"command": "x", "args": ["${file}"]}`), "/w", "${file} is the editor's state, which cwx does not have"},
		{"vscode unknown", vs(`{"command": "x", "args": ["${VAR}"]}`), "/w", "${VAR} is not a variable cwx knows; write the value, or one of ${env:NAME}"},
		{"vscode no folder", vs(`{"command": "x", "args": ["${workspaceFolder}"]}`), "", "${workspaceFolder} has no folder here"},
		{"vscode no home", vs(`{"command": "x", "args": ["${userHome}"]}`), "/w", "${userHome} needs HOME"},
		{"vscode relative cwd", vs(`{"command": "x", "cwd": "rel/${env:SECRET}"}`), "/w", `cwd: "rel/${env:SECRET}" is not an absolute path once expanded; write ${workspaceFolder}/…`},
	} {
		f, err := Decode([]byte(tc.file))
		if err != nil {
			t.Errorf("%s: decode: %v", tc.name, err)
			continue
		}
		_, err = f.Expand(Vars{Lookup: lookup, WorkspaceFolder: tc.folder})
		var e *Error
		if err == nil || !strings.Contains(err.Error(), tc.says) || !errors.Is(err, ErrFile) || !errors.As(err, &e) || e.Server != "a" {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.says)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error holds a variable's value: %v", tc.name, err)
		}
	}
}

// TestStdioFolder: a stdio server runs in the file's folder unless VS Code's cwd says
// otherwise, and a relative command with a slash is taken from where it runs.
func TestStdioFolder(t *testing.T) {
	for _, tc := range []struct{ file, folder, command, cwd string }{
		{`{"mcpServers": {"a": {"command": "./bin/server"}}}`, "/proj", "/proj/bin/server", "/proj"},
		{`{"mcpServers": {"a": {"command": "node"}}}`, "/proj/", "node", "/proj"},
		{`{"mcpServers": {"a": {"command": "./bin/server"}}}`, "", "./bin/server", ""},
		{`{"servers": {"a": {"command": "bin/server", "cwd": "${workspaceFolder}/tools/../sub"}}}`, "/proj", "/proj/sub/bin/server", "/proj/sub"},
	} {
		f, err := Decode([]byte(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		es, err := f.Expand(Vars{Lookup: env(), WorkspaceFolder: tc.folder})
		if err != nil || es[0].Server.Command != tc.command || es[0].Server.Cwd != tc.cwd {
			t.Errorf("%s in %q: %+v %v; want %s in %s", tc.file, tc.folder, es, err, tc.command, tc.cwd)
		}
	}
}

// TestDecodePlugin: a plugin's .mcp.json with its servers under mcpServers or at the top
// level, or none.
func TestDecodePlugin(t *testing.T) {
	for _, tc := range []struct {
		file  string
		names []string
	}{
		{`{"mcpServers": {"notes": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.mjs"]}}}`, []string{"notes"}},
		{`{"context7": {"command": "npx", "args": ["-y", "@upstash/context7-mcp"]}, "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}`, []string{"context7", "github"}},
		{`{}`, nil},
		{`{"mcpServers": {}}`, nil},
	} {
		f, err := DecodePlugin([]byte(tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var names []string
		for _, s := range f.Servers {
			names = append(names, s.Name)
		}
		if f.Format != ClaudeCode || !reflect.DeepEqual(names, tc.names) {
			t.Errorf("%s: %+v", tc.file, f)
		}
	}
	if f, _ := DecodePlugin([]byte(`{"mcpServers": {"notes": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/s.mjs"]}}}`)); f.Servers[0].Args[0] != "${CLAUDE_PLUGIN_ROOT}/s.mjs" {
		t.Errorf("a plugin's values must stay as written: %+v", f.Servers[0])
	}
	for file, says := range map[string]string{
		`{"servers": {"a": {"command": "x"}}}`: `a plugin's .mcp.json is Claude Code's, not VS Code's {"servers": …}; write {"mcpServers"`,
		`{"a": "npx"}`:                         `server "a" is not an object`,
		`[]`:                                   "not a JSON object",
	} {
		if _, err := DecodePlugin([]byte(file)); err == nil || !strings.Contains(err.Error(), says) || !errors.Is(err, ErrFile) {
			t.Errorf("%s: %v, want %q", file, err, says)
		}
	}
}

// TestPlain: comments and trailing commas become spaces, strings are left alone, offsets
// stay.
func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1, // note` + "\n" + `}`:                 `{"a": 1         ` + "\n" + `}`,
		`{"u": "https://x/*y*/", /* c */ "b": [1,2,],}`: `{"u": "https://x/*y*/",         "b": [1,2 ] }`,
		`{"s": "a\"//b"}`:                               `{"s": "a\"//b"}`,
		"[1, /* a\nb */ ]":                              "[1      \n     ]",
		`{"a": /* open`:                                 `{"a": /* open`,
		`{"a": "x", // trailing` + "\n}":                `{"a": "x"             ` + "\n}",
		`["\\", 1,]`:                                    `["\\", 1 ]`,
	} {
		if got := string(plain([]byte(in))); got != want {
			t.Errorf("plain(%q) = %q, want %q", in, got, want)
		}
	}
}
