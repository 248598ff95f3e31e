package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// tsClientDir holds the TypeScript SDK client; `make mcp-client` installs its packages.
var tsClientDir = filepath.Join("..", "..", "testdata", "mcp-client")

// tsOutput is what testdata/mcp-client/client.mjs prints.
type tsOutput struct {
	ConnectError string `json:"connectError"`
	Tools        []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tools"`
	Elicited string `json:"elicited"`
	Call     *struct {
		IsError    bool            `json:"isError"`
		Text       string          `json:"text"`
		Structured json.RawMessage `json:"structured"`
	} `json:"call"`
}

// tsClient runs the TypeScript SDK client with the pinned Node and decodes its output.
func tsClient(t *testing.T, home string, args ...string) tsOutput {
	t.Helper()
	node := testenv.Node(t)
	script, err := filepath.Abs(filepath.Join(tsClientDir, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node.Path, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "CWX_HOME="+home)
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var o tsOutput
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("client.mjs output %q: %v\n%s", out, err, stderr.String())
	}
	return o
}

// requireTSClient skips without the client's packages (fails in CI, where the Makefile
// installs them).
func requireTSClient(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		if testenv.InCI() {
			t.Fatalf("the TypeScript MCP client is not installed: run `make mcp-client` (%v)", err)
		}
		t.Skipf("the TypeScript MCP client is not installed: run `make mcp-client` (%v)", err)
	}
}

// startHTTPServe starts `cwx serve --mcp --http 127.0.0.1:0` and returns its URL and token.
func startHTTPServe(t *testing.T, bin, home string, args ...string) (url, token string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--mcp", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "CWX_HOME="+home)
	cmd.Dir = t.TempDir()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Error("serve --http did not exit on SIGTERM")
		}
	})
	urlRE := regexp.MustCompile(`MCP streamable HTTP at (http://\S+)`)
	tokenRE := regexp.MustCompile(`bearer token: ([0-9a-f]{64})`)
	limit := time.After(30 * time.Second)
	for url == "" || token == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("serve --http ended before printing its address and token")
			}
			if m := urlRE.FindStringSubmatch(l); m != nil {
				url = m[1]
			}
			if m := tokenRE.FindStringSubmatch(l); m != nil {
				token = m[1]
			}
		case <-limit:
			t.Fatal("serve --http printed no address and token")
		}
	}
	return url, token
}

// TestServeMCPTypeScriptClient drives `cwx serve --mcp` with the official TypeScript SDK's
// client (run by the pinned Node), the server's hosts on Node and on Bun: over stdio with
// elicitation allowing and denying, and with --approve-extensions; over HTTP with the token,
// and refused without it, with another one and from a foreign Origin.
func TestServeMCPTypeScriptClient(t *testing.T) {
	requireTSClient(t)
	rts := testenv.Runtimes()
	bin := testenv.BuildCWX(t, "")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "mcp-probe"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range rts {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, fixture))
			echo := []string{"--call", "probe_echo", "--args", `{"text":"ts"}`}
			stdio := []struct {
				name    string
				args    []string
				isError bool
				text    string
			}{
				{"elicitation allows", []string{"--elicit", "allow_once"}, false, `{"echo":"ts"}`},
				{"elicitation denies", []string{"--elicit", "deny"}, true, "denied"},
				{"approve extensions", []string{"--serve-arg=--approve", "--serve-arg=auto", "--serve-arg=--approve-extensions"}, false, `{"echo":"ts"}`},
				{"no elicitation, ask", nil, true, "--approve auto --approve-extensions"},
			}
			for _, c := range stdio {
				o := tsClient(t, home, append(append([]string{"--bin", bin}, c.args...), echo...)...)
				if o.ConnectError != "" || o.Call == nil || o.Call.IsError != c.isError || !strings.Contains(o.Call.Text, c.text) {
					t.Errorf("stdio, %s: %+v", c.name, o)
				}
				if len(o.Tools) < 4 {
					t.Errorf("stdio, %s: %d tools", c.name, len(o.Tools))
				}
			}

			url, token := startHTTPServe(t, bin, home, "--approve", "auto", "--approve-extensions")
			http := []struct {
				name, token, origin, refused string
			}{
				{"token", token, "", ""},
				{"own origin", token, strings.TrimSuffix(url, "/mcp"), ""},
				{"no token", "", "", "a valid bearer token is required"},
				{"wrong token", strings.Repeat("0", 64), "", "a valid bearer token is required"},
				{"foreign origin", token, "http://evil.example", "origin not allowed"},
			}
			for _, c := range http {
				args := []string{"--url", url}
				if c.token != "" {
					args = append(args, "--token", c.token)
				}
				if c.origin != "" {
					args = append(args, "--origin", c.origin)
				}
				o := tsClient(t, home, append(args, echo...)...)
				switch {
				case c.refused != "" && !strings.Contains(o.ConnectError, c.refused):
					t.Errorf("http, %s: not refused with %s: %+v", c.name, c.refused, o)
				case c.refused == "" && (o.ConnectError != "" || o.Call == nil || o.Call.IsError || o.Call.Text != `{"echo":"ts"}`):
					t.Errorf("http, %s: %+v", c.name, o)
				}
			}
		})
	}
}
