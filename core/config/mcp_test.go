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
