package config

import (
	"errors"
	"strings"
	"testing"
)

func TestMCPServers(t *testing.T) {
	cfg, err := Parse("config.toml", []byte(`
[mcp.servers.everything]
command = "npx"
args = ["-y", "server-everything"]
env = {TOKEN = "x"}
approval = "auto"
tools = ["echo"]
timeout_s = 30
max_result_bytes = 4096

[mcp.servers.fs]
command = "/usr/bin/fs-server"
cwd = "/srv/x/"
`))
	if err != nil {
		t.Fatal(err)
	}
	ev := cfg.MCP["everything"]
	if ev.Command != "npx" || ev.Approval != MCPApprovalAuto || ev.TimeoutS != 30 || ev.MaxResultBytes != 4096 || ev.Env["TOKEN"] != "x" {
		t.Fatalf("everything = %+v", ev)
	}
	if !ev.Allowed("echo") || ev.Allowed("add") {
		t.Fatalf("allow-list: echo %v, add %v", ev.Allowed("echo"), ev.Allowed("add"))
	}
	fs := cfg.MCP["fs"]
	if fs.Approval != MCPApprovalAsk || fs.TimeoutS != DefaultMCPTimeoutS || fs.MaxResultBytes != DefaultMCPResultBytes || fs.Cwd != "/srv/x" || !fs.Allowed("anything") {
		t.Fatalf("fs defaults = %+v", fs)
	}
	if got := cfg.MCPNames(); strings.Join(got, ",") != "everything,fs" {
		t.Fatalf("names = %v", got)
	}
}

func TestMCPIdentity(t *testing.T) {
	a := MCPServer{Command: "npx", Args: []string{"a"}, Env: map[string]string{"K": "1"}}
	b := a
	b.Env = map[string]string{"K": "2"} // values do not count
	if a.Identity() != b.Identity() {
		t.Fatal("an env value changed the identity")
	}
	for _, c := range []MCPServer{
		{Command: "npx", Args: []string{"b"}, Env: a.Env},
		{Command: "npm", Args: a.Args, Env: a.Env},
		{Command: "npx", Args: a.Args, Env: map[string]string{"L": "1"}},
		{Command: "npx", Args: a.Args, Env: a.Env, Cwd: "/x"},
	} {
		if c.Identity() == a.Identity() {
			t.Fatalf("%+v has a's identity", c)
		}
	}
}

func TestMCPServerErrors(t *testing.T) {
	for _, tc := range []struct{ toml, key, says string }{
		{"[mcp.servers.Bad]\ncommand = \"x\"", "mcp.servers.Bad", "must match"},
		{"[mcp.servers.a_b]\ncommand = \"x\"", "mcp.servers.a_b", "no _"},
		{"[mcp.servers.a]\nargs = []", "mcp.servers.a.command", "needs a command"},
		{"[mcp.servers.a]\ncommand = \"bin/x\"", "mcp.servers.a.command", "relative path"},
		{"[mcp.servers.a]\ncommand = \"x\"\napproval = \"deny\"", "mcp.servers.a.approval", `"ask"`},
		{"[mcp.servers.a]\ncommand = \"x\"\ncwd = \"rel\"", "mcp.servers.a.cwd", "absolute"},
		{"[mcp.servers.a]\ncommand = \"x\"\ntimeout_s = 0", "mcp.servers.a.timeout_s", "out of range"},
		{"[mcp.servers.a]\ncommand = \"x\"\nmax_result_bytes = 10", "mcp.servers.a.max_result_bytes", "out of range"},
		{"[mcp.servers.a]\ncommand = \"x\"\nenv = {\"A-B\" = \"1\"}", "mcp.servers.a.env", "not an environment variable name"},
		{"[mcp.servers.a]\ncommand = \"x\"\ntools = [\"\"]", "mcp.servers.a.tools", "empty tool name"},
		{"[mcp.servers.a]\ncommand = \"x\"\ntimeout = 3", "mcp.servers.a.timeout", "did you mean timeout_s"},
	} {
		_, err := Parse("config.toml", []byte(tc.toml))
		var ce *Error
		if !errors.As(err, &ce) || !errors.Is(err, ErrInvalid) {
			t.Fatalf("%q: err = %v, want a config error", tc.toml, err)
		}
		if ce.Key != tc.key || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: key %q, error %q; want key %q saying %q", tc.toml, ce.Key, err, tc.key, tc.says)
		}
	}
}

func TestMCPRemoteServers(t *testing.T) {
	cfg, err := Parse("/h/config.toml", []byte(`
mcp_servers_file = [".mcp.json", "/w/.vscode/mcp.json", ".mcp.json"]

[mcp.servers.remote]
url = "https://mcp.example.com/mcp"
headers = {authorization = "Bearer ${env:TOKEN}", X-Team = "a"}

[mcp.servers.old]
url = "http://127.0.0.1:9/sse"
type = "sse"
allow_private = true
`))
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.MCP["remote"]
	if r.Transport != MCPHTTP || r.URL != "https://mcp.example.com/mcp" || r.Headers["Authorization"] != "Bearer ${env:TOKEN}" || r.AllowPrivate || !r.Remote() {
		t.Fatalf("remote = %+v", r)
	}
	if got := strings.Join(r.HeaderNames(), ","); got != "Authorization,X-Team" {
		t.Fatalf("header names = %s", got)
	}
	o := cfg.MCP["old"]
	if o.Transport != MCPSSE || !o.AllowPrivate || o.Line() != "sse http://127.0.0.1:9/sse" {
		t.Fatalf("old = %+v", o)
	}
	if strings.Join(cfg.MCPFiles, ",") != "/h/.mcp.json,/w/.vscode/mcp.json" {
		t.Fatalf("files = %v", cfg.MCPFiles)
	}
	// The identity is of the URL, the header names and allow_private, never a value.
	b := r
	b.Headers = map[string]string{"Authorization": "other", "X-Team": "b"}
	if b.Identity() != r.Identity() {
		t.Fatal("a header value changed the identity")
	}
	for _, c := range []MCPServer{
		{Transport: MCPHTTP, URL: "https://mcp.example.com/other", Headers: r.Headers},
		{Transport: MCPSSE, URL: r.URL, Headers: r.Headers},
		{Transport: MCPHTTP, URL: r.URL},
		{Transport: MCPHTTP, URL: r.URL, Headers: r.Headers, AllowPrivate: true},
	} {
		if c.Identity() == r.Identity() {
			t.Fatalf("%+v has remote's identity", c)
		}
	}
}

func TestMCPRemoteServerErrors(t *testing.T) {
	for _, tc := range []struct{ toml, key, says string }{
		{"[mcp.servers.a]\nurl = \"ftp://x/\"", "mcp.servers.a.url", "not an http or https URL"},
		{"[mcp.servers.a]\nurl = \"https://u:p@x/\"", "mcp.servers.a.url", "as a header"},
		{"[mcp.servers.a]\nurl = \"https://x/\"\ncommand = \"x\"", "mcp.servers.a.url", "not both"},
		{"[mcp.servers.a]\nurl = \"https://x/\"\ntype = \"ws\"", "mcp.servers.a.type", `"sse"`},
		{"[mcp.servers.a]\ncommand = \"x\"\ntype = \"http\"", "mcp.servers.a.type", "needs a url"},
		{"[mcp.servers.a]\ncommand = \"x\"\nheaders = {A = \"1\"}", "mcp.servers.a.headers", "remote server"},
		{"[mcp.servers.a]\nurl = \"https://x/\"\nheaders = {Host = \"y\"}", "mcp.servers.a.headers.Host", "set by the connection"},
		{"[mcp.servers.a]\nurl = \"https://x/\"\nheaders = {A = \"${TOKEN}\"}", "mcp.servers.a.headers.A", "${env:NAME}"},
		{"mcp_servers_file = []", "mcp_servers_file", "empty list"},
		{"mcp_servers_file = 3", "mcp_servers_file", "not a path"},
	} {
		_, err := Parse("config.toml", []byte(tc.toml))
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Reason, tc.says) {
			t.Errorf("%q: err = %v, want key %s saying %q", tc.toml, err, tc.key, tc.says)
		}
	}
}
