package mcpfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// A Claude Code .mcp.json as its documentation writes one: a stdio server with expansion and
// a default, an HTTP server whose token comes from the environment, an SSE one.
const claudeFile = `{
  "mcpServers": {
    "github_tools": {
      "command": "${HOME}/bin/gh-mcp",
      "args": ["--repo", "${REPO:-cwx-dev/cwx}"],
      "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    },
    "api-server": {
      "type": "http",
      "url": "${API_BASE_URL:-https://api.example.com}/mcp",
      "headers": {"Authorization": "Bearer ${API_KEY}"}
    },
    "old": {"type": "sse", "url": "https://old.example.com/sse", "description": "ignored"}
  }
}`

func TestClaudeCodeFile(t *testing.T) {
	f, err := Decode([]byte(claudeFile))
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != ClaudeCode || len(f.Servers) != 3 {
		t.Fatalf("file = %+v", f)
	}
	es, err := f.Expand(Vars{Lookup: env("HOME", "/home/ada", "GITHUB_TOKEN", "ghp_x", "API_KEY", "k-123"), WorkspaceFolder: "/proj"})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]config.MCPServer{}
	for _, e := range es {
		byName[e.Name] = e.Server
	}
	gh := byName["github_tools"]
	if gh.Transport != config.MCPStdio || gh.Command != "/home/ada/bin/gh-mcp" || strings.Join(gh.Args, " ") != "--repo cwx-dev/cwx" || gh.Env["GITHUB_TOKEN"] != "ghp_x" || gh.Cwd != "/proj" {
		t.Errorf("github_tools = %+v", gh)
	}
	api := byName["api-server"]
	if api.Transport != config.MCPHTTP || api.URL != "https://api.example.com/mcp" || api.Headers["Authorization"] != "Bearer k-123" {
		t.Errorf("api-server = %+v", api)
	}
	if old := byName["old"]; old.Transport != config.MCPSSE || old.URL != "https://old.example.com/sse" {
		t.Errorf("old = %+v", old)
	}
	if es[0].Name != "api-server" || es[2].Name != "old" {
		t.Errorf("not sorted: %v", es)
	}
}

// A VS Code mcp.json: inputs, ${input:…} refused by name, ${workspaceFolder} and ${env:…}.
const vscodeFile = `{
  "inputs": [{"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true}],
  "servers": {
    "fs": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}"], "env": {"DEBUG": "${env:DEBUG_LEVEL}"}},
    "perplexity": {"type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"], "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}}
  }
}`

func TestVSCodeFile(t *testing.T) {
	f, err := Decode([]byte(vscodeFile))
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != VSCode || len(f.Inputs) != 1 || f.Inputs[0] != "perplexity-key" {
		t.Fatalf("file = %+v", f)
	}
	_, err = f.Expand(Vars{Lookup: env("DEBUG_LEVEL", "1"), WorkspaceFolder: "/proj"})
	if err == nil || !strings.Contains(err.Error(), "${input:perplexity-key}") || !strings.Contains(err.Error(), `server "perplexity"`) || !errors.Is(err, errdefs.ErrInvalidInput) {
		t.Fatalf("err = %v, want the input refused by name", err)
	}
	f.Servers = f.Servers[:1] // without the server that needs an input
	es, err := f.Expand(Vars{Lookup: env("DEBUG_LEVEL", "1"), WorkspaceFolder: "/proj"})
	if err != nil {
		t.Fatal(err)
	}
	if s := es[0].Server; s.Args[2] != "/proj" || s.Env["DEBUG"] != "1" {
		t.Fatalf("fs = %+v", s)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ file, says string }{
		{`[]`, "not a JSON object"},
		{`{"other": {}}`, "neither mcpServers"},
		{`{"mcpServers": {}, "servers": {}}`, "keep one"},
		{`{"mcpServers": []}`, "not an object of servers"},
		{`{"mcpServers": {"a": "npx"}}`, `server "a" is not an object`},
		{`{"mcpServers": {"a": {}}}`, "needs a command"},
		{`{"mcpServers": {"a": {"command": "x", "url": "https://x"}}}`, "not both"},
		{`{"mcpServers": {"a": {"command": "x", "args": "y"}}}`, "must be a list of strings"},
		{`{"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}`, "must be a string"},
		{`{"mcpServers": {"a": {"command": "x", "type": "ws"}}}`, "not stdio, http or sse"},
		{`{"mcpServers": {"a": {"url": "https://x", "type": "stdio"}}}`, "stdio needs a command"},
		{`{"mcpServers": {"a": {"url": "https://x", "env": {"A": "1"}}}}`, "a local server's"},
		{`{"mcpServers": {"a": {"command": "x", "headers": {"A": "1"}}}}`, "a remote server's"},
		{`{"servers": {"a": {"command": "x", "envFile": "${workspaceFolder}/.env"}}}`, "envFile is not read"},
		{`{"mcpServers": {"a": {"command": "x\u001b[2J"}}}`, `server "a"`},
		{`{"servers": {"a": {"command": "x"}}, "inputs": {}}`, "inputs is not a list"},
	} {
		_, err := Decode([]byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.says) || !errors.Is(err, ErrFile) {
			t.Errorf("%s: err = %v, want %q", tc.file, err, tc.says)
		}
	}
	if _, err := Decode(make([]byte, MaxFileBytes+1)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a large file: %v", err)
	}
}

// Expansion errors name the variable and the field, never a value.
func TestExpandErrors(t *testing.T) {
	const secret = "s3cr3t-value"
	lookup := env("SECRET", secret, "BAD_URL", "ftp://"+secret)
	for _, tc := range []struct{ file, says string }{
		{`{"mcpServers": {"a": {"command": "x", "args": ["${UNSET_VAR}"]}}}`, `server "a": args[0]: ${UNSET_VAR} is not set`},
		{`{"mcpServers": {"a": {"url": "https://x/", "headers": {"X-Key": "${UNSET_KEY}"}}}}`, "headers.X-Key: ${UNSET_KEY} is not set"},
		{`{"mcpServers": {"a": {"url": "${BAD_URL}"}}}`, "not an http or https URL"},
		{`{"mcpServers": {"a": {"url": "https://x/", "headers": {"Host": "${SECRET}"}}}}`, "set by the connection"},
		{`{"servers": {"a": {"command": "x", "env": {"K": "${env:UNSET_VAR}"}}}}`, "${env:UNSET_VAR} is not set"},
		{`{"servers": {"a": {"command": "x", "args": ["${config:editor.tabSize}"]}}}`, "${config:editor.tabSize} is not expanded by cwx"},
		{`{"servers": {"a": {"command": "x", "cwd": "rel"}}}`, "cwd must be an absolute path"},
		{`{"mcpServers": {"a": {"url": "https://x/", "headers": {"A": "${SECRET}\n"}}}}`, "line break"},
	} {
		f, err := Decode([]byte(tc.file))
		if err != nil {
			t.Errorf("%s: decode: %v", tc.file, err)
			continue
		}
		_, err = f.Expand(Vars{Lookup: lookup, WorkspaceFolder: "/w"})
		if err == nil || !strings.Contains(err.Error(), tc.says) || !errors.Is(err, ErrFile) {
			t.Errorf("%s: err = %v, want %q", tc.file, err, tc.says)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error holds the value: %v", tc.file, err)
		}
	}
}

// A relative command with a slash is the file's folder's; cwd defaults to that folder.
func TestRelativeCommand(t *testing.T) {
	f, err := Decode([]byte(`{"mcpServers": {"a": {"command": "./bin/server", "args": ["${X:-}"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	es, err := f.Expand(Vars{Lookup: env(), WorkspaceFolder: "/proj"})
	if err != nil {
		t.Fatal(err)
	}
	if s := es[0].Server; s.Command != "/proj/bin/server" || s.Cwd != "/proj" || s.Args[0] != "" {
		t.Fatalf("server = %+v", s)
	}
}
