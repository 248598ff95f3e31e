package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

const docsToken = "docs-tok-9c41e7a2"

// docsServer is a Streamable HTTP MCP server on loopback with one tool, lookup, behind a
// bearer check of docsToken.
func docsServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	type in struct {
		Q string `json:"q"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lookup", Description: "Look a term up."}, func(_ context.Context, _ *mcp.CallToolRequest, v in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found " + v.Q}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+docsToken {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// TestMCPServersFileCLI reads a Claude Code .mcp.json unmodified through mcp_servers_file:
// one stdio server (its env from a ${VAR:-default}) and one Streamable HTTP server (its
// bearer token from ${VAR}). Neither runs before review and trust; once trusted both answer
// through the gate; the token is in no output, log or file of the cwx home; an unset
// variable is named by `cwx mcp list`.
func TestMCPServersFileCLI(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	url := docsServer(t)
	t.Setenv("CWX_TEST_DOCS_TOKEN", docsToken)
	project := t.TempDir()
	mcpJSON := fmt.Sprintf(`{
  "mcpServers": {
    "local_tools": {
      "command": %q,
      "args": [],
      "env": {%q: "${CWX_TEST_MODE_SURELY_UNSET:-tools}"}
    },
    "remote-docs": {
      "type": "http",
      "url": %q,
      "headers": {"Authorization": "Bearer ${CWX_TEST_DOCS_TOKEN}"}
    }
  }
}
`, exe, mcptest.ModeEnv, url)
	file := filepath.Join(project, ".mcp.json")
	if err := os.WriteFile(file, []byte(mcpJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	home := e2eHome(t, testenv.Node(t), "")
	conf, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	conf = append([]byte(fmt.Sprintf("mcp_servers_file = %q\n", file)), conf...)
	// The file's servers ask approval; the calls below pass --approve auto (no terminal).
	if err := os.WriteFile(filepath.Join(home, "config.toml"), conf, 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &e2eRecorder{t: t, bin: bin, home: home}
	run := rec.run

	// Nothing from the file runs before trust.
	if r := run("mcp", "list", "--json"); r.code != 0 || strings.Contains(r.stdout, "local-tools") {
		t.Fatalf("list before trust: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run("tool", "call", "mcp_remote-docs_lookup", "--input", `{"q":"x"}`); r.code == 0 {
		t.Fatalf("an untrusted file's server answered: %s", r.stdout)
	}
	for _, name := range []string{"local-tools", "remote-docs"} {
		r := run("mcp", "review", name, "--json")
		var rv struct {
			Token, Source, URL, Transport string
			Headers                       []string
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rv) != nil || rv.Token == "" || rv.Source != file {
			t.Fatalf("review %s: %d %s %s", name, r.code, r.stdout, r.stderr)
		}
		if name == "remote-docs" && (rv.URL != url || rv.Transport != "http" || strings.Join(rv.Headers, ",") != "Authorization") {
			t.Fatalf("review of the remote server: %s", r.stdout)
		}
		text := run("mcp", "review", name).stdout
		if name == "remote-docs" && (!strings.Contains(text, "reaches:  "+url) || !strings.Contains(text, "headers:  Authorization (values not shown)")) {
			t.Errorf("review text:\n%s", text)
		}
		if r := run("mcp", "trust", name, "--token", "mcp1-wrong"); r.code != ExitDenied {
			t.Errorf("trust with a wrong token: exit %d %s", r.code, r.stderr)
		}
		if r := run("mcp", "trust", name, "--token", rv.Token); r.code != 0 {
			t.Fatalf("trust %s: %s", name, r.stderr)
		}
	}
	if r := run("tool", "call", "mcp_local-tools_echo", "--approve", "auto", "--input", `{"text":"from stdio"}`); r.code != 0 || strings.TrimSpace(r.stdout) != "from stdio" {
		t.Fatalf("stdio call: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := run("tool", "call", "mcp_remote-docs_lookup", "--approve", "auto", "--input", `{"q":"gate"}`); r.code != 0 || strings.TrimSpace(r.stdout) != "found gate" {
		t.Fatalf("http call: %d %q %q", r.code, r.stdout, r.stderr)
	}
	show := run("mcp", "show", "remote-docs").stdout
	if !strings.Contains(show, "reaches:  "+url+" (http, from the core)") {
		t.Errorf("show:\n%s", show)
	}
	run("logs", "mcp:remote-docs")
	run("logs", "mcp:local-tools")

	// A wrong token is the server's 401, named, and still no token in the text.
	t.Setenv("CWX_TEST_DOCS_TOKEN", "not-"+docsToken)
	if r := run("tool", "call", "mcp_remote-docs_lookup", "--approve", "auto", "--input", `{"q":"x"}`); r.code == 0 || !strings.Contains(r.stderr, "401") {
		t.Errorf("a wrong token: %d %s", r.code, r.stderr)
	}
	// An unset variable without a default: the file's servers do not run, and the list names it.
	os.Unsetenv("CWX_TEST_DOCS_TOKEN")
	if r := run("mcp", "list"); !strings.Contains(r.stderr, "CWX_TEST_DOCS_TOKEN") || strings.Contains(r.stdout, "remote-docs") {
		t.Errorf("list with the variable unset: %s %s", r.stdout, r.stderr)
	}

	if o := rec.secretIn(docsToken); o != "" {
		t.Fatalf("the token is in cwx's output:\n%s", o)
	}
	_ = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), docsToken) {
			t.Errorf("the token is in %s", p)
		}
		return nil
	})
}
