package mcpclient

import (
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/ccplugin"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
)

func TestPluginServerName(t *testing.T) {
	for in, want := range map[string]string{
		"notes": "notes", "My_Server": "my-server", "a.b c": "a-b-c", "9lives": "", "": "", "日本": "",
		strings.Repeat("x", 40): strings.Repeat("x", 32),
	} {
		if got := PluginServerName(in); got != want {
			t.Errorf("PluginServerName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCandidatesAndTrust(t *testing.T) {
	kit := plugins.ClaudeDesired{ID: "kit", Root: "/stage/kit@abc", Plugin: &ccplugin.Plugin{MCP: []ccplugin.MCPServer{
		{Name: "notes", Command: "node", Args: []string{"${CLAUDE_PLUGIN_ROOT}/s.mjs"}, EnvValues: map[string]string{"DIR": "${CLAUDE_PLUGIN_ROOT}/d"}},
		{Name: "web", Type: config.MCPHTTP, URL: "https://x.example/mcp", HeaderValues: map[string]string{"x-client": "kit/1"}},
		{Name: "leaky", Type: config.MCPHTTP, URL: "https://x.example/mcp", HeaderValues: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"}},
		{Name: "leaky-url", Type: config.MCPSSE, URL: "https://x.example/sse?k=${env:KEY}"},
		{Name: "ftp", Type: config.MCPHTTP, URL: "ftp://x.example/mcp"},
		{Name: "fs", Command: "fs"},
		{Name: "dup", Command: "a"},
	}}}
	other := plugins.ClaudeDesired{ID: "other", Root: "/stage/other", Plugin: &ccplugin.Plugin{MCP: []ccplugin.MCPServer{{Name: "dup", Command: "b"}}}}
	cands := Candidates([]plugins.ClaudeDesired{kit, other}, nil, map[string]config.MCPServer{"fs": {Name: "fs"}})
	byName := map[string][]Candidate{}
	for _, c := range cands {
		byName[c.Server.Name] = append(byName[c.Server.Name], c)
	}
	notes := byName["notes"][0]
	if notes.Problem != "" || notes.Server.Args[0] != "/stage/kit@abc/s.mjs" || notes.Server.Env["DIR"] != "/stage/kit@abc/d" || notes.Server.Plugin != "kit" {
		t.Fatalf("notes = %+v", notes)
	}
	// a plugin's remote server runs as written: its headers are never expanded, and one that
	// asks for a variable of the user's does not run at all
	web := byName["web"][0]
	if web.Problem != "" || !web.Server.Remote() || web.Server.URL != "https://x.example/mcp" || web.Server.Headers["X-Client"] != "kit/1" || web.Server.Command != "" {
		t.Fatalf("web = %+v", web)
	}
	if r := ReviewOf(web, nil); r.URL != "https://x.example/mcp" || r.Token == "" || strings.Join(r.Headers, ",") != "X-Client" || r.Note != RemoteReviewNote {
		t.Fatalf("review of web = %+v", r)
	}
	for name, says := range map[string]string{"leaky": "its header Authorization names a variable", "leaky-url": "its url names a variable",
		"ftp": "its url:", "fs": "config.toml already", "dup": "another plugin"} {
		if len(byName[name]) == 0 {
			t.Errorf("%s: no candidate", name)
		}
		for _, c := range byName[name] {
			if !strings.Contains(c.Problem, says) {
				t.Errorf("%s: problem %q, want %q", name, c.Problem, says)
			}
		}
	}
	home := t.TempDir()
	trust, err := LoadTrust(home)
	if err != nil || len(trust) != 0 {
		t.Fatalf("empty trust: %v %v", trust, err)
	}
	r := ReviewOf(notes, trust)
	if r.Trusted || r.Token == "" || r.Token != Token("kit", "notes", notes.Server.Identity()) || len(r.Env) != 1 {
		t.Fatalf("review = %+v", r)
	}
	trust["notes"] = TrustEntry{Plugin: "kit", Identity: r.Identity}
	if err := SaveTrust(home, trust); err != nil {
		t.Fatal(err)
	}
	again, err := LoadTrust(home)
	if err != nil || !ReviewOf(notes, again).Trusted {
		t.Fatalf("after trust: %v %+v", err, again)
	}
	changed := notes
	changed.Server.Args = []string{"/stage/kit@def/s.mjs"} // a new plugin version
	if ReviewOf(changed, again).Trusted {
		t.Fatal("a changed server is still trusted")
	}
	if ReviewOf(byName["leaky"][0], again).Token != "" {
		t.Fatal("a server that cannot run got a token")
	}
}
