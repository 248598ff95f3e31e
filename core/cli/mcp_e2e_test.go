package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMCPCLI runs the real cwx against a config.toml MCP server (this test binary as the test
// server, core/internal/mcptest): `cwx mcp list` starts nothing, `cwx tool call` starts it and
// calls through the gate, the next listing answers from the catalog, `cwx mcp show`,
// `resources` and `prompts` report it, `cwx logs mcp:t` has its stderr and doctor finds its
// command.
func TestMCPCLI(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := e2eHome(t, testenv.Node(t), fmt.Sprintf("[mcp.servers.t]\ncommand = %q\nenv = {%s = \"tools\"}\napproval = \"auto\"\n", exe, mcptest.ModeEnv))

	var list []MCPServerJSON
	if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "mcp", "list", "--json").stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "t" || list[0].State != "idle" || list[0].PID != 0 || list[0].Cached {
		t.Fatalf("first list = %+v", list)
	}
	if r := e2eMust(t, bin, home, "tool", "call", "mcp_t_echo", "--input", `{"text":"hi there"}`); strings.TrimSpace(r.stdout) != "hi there" {
		t.Fatalf("call: %q %q", r.stdout, r.stderr)
	}
	if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "mcp", "list", "--json").stdout), &list); err != nil {
		t.Fatal(err)
	}
	if list[0].State != "idle" || !list[0].Cached || list[0].Tools < 5 {
		t.Fatalf("list after a call = %+v", list)
	}
	if r := e2eMust(t, bin, home, "tool", "list"); !strings.Contains(r.stdout, "mcp_t_echo") {
		t.Fatalf("tool list lacks mcp_t_echo:\n%s", r.stdout)
	}
	show := e2eMust(t, bin, home, "mcp", "show", "t").stdout
	for _, want := range []string{"server:   t (ready)", "unsandboxed", "mcp_t_echo", "instructions: use echo", "identity: sha256:"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if r := e2eMust(t, bin, home, "tool", "call", "mcp_t_sleep", "--input", `{"seconds":0.1}`); !strings.Contains(r.stderr, "progress: 1/2 half") || strings.TrimSpace(r.stdout) != "slept" {
		t.Errorf("progress on stderr: %q %q", r.stdout, r.stderr)
	}
	if r := e2eMust(t, bin, home, "mcp", "resources", "t"); !strings.Contains(r.stdout, "test://readme") {
		t.Errorf("resources: %s", r.stdout)
	}
	if r := e2eMust(t, bin, home, "mcp", "prompts"); !strings.Contains(r.stdout, "greet(who)") {
		t.Errorf("prompts: %s", r.stdout)
	}
	if r := e2eMust(t, bin, home, "logs", "mcp:t"); !strings.Contains(r.stdout, "test server: ready") {
		t.Errorf("logs lack the server's stderr:\n%s", r.stdout)
	}
	if r := e2eCWX(t, bin, home, "", "doctor"); !strings.Contains(r.stdout, "mcp t") || !strings.Contains(r.stdout, "unsandboxed") {
		t.Errorf("doctor:\n%s%s", r.stdout, r.stderr)
	}
	if r := e2eMust(t, bin, home, "host", "status"); !strings.Contains(r.stdout, "NAME  STATE") || !strings.Contains(r.stdout, "\nt     idle") {
		t.Errorf("host status lacks the MCP server:\n%s", r.stdout)
	}
	if r := e2eCWX(t, bin, home, "", "mcp", "show", "nope"); r.code != ExitUnavailable {
		t.Errorf("show of an unknown server: exit %d %s", r.code, r.stderr)
	}
}

// TestMCPPluginServerTrust: a Claude Code plugin's .mcp.json server does not start, even with
// the plugin enabled and trusted, until `cwx mcp review` showed it and `cwx mcp trust` took
// that review's token; a wrong token is refused; once trusted its tools are called like any
// other.
func TestMCPPluginServerTrust(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `{"name": "mcp-kit", "version": "1.0.0", "description": "An MCP server (a cwx test fixture)."}`
	mcpJSON := fmt.Sprintf(`{"mcpServers": {"kit_server": {"command": %q, "args": ["--from", "${CLAUDE_PLUGIN_ROOT}"], "env": {%q: "tools"}}}}`, exe, mcptest.ModeEnv)
	for p, text := range map[string]string{".claude-plugin/plugin.json": manifest, ".mcp.json": mcpJSON} {
		if err := os.WriteFile(filepath.Join(src, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := e2eHome(t, testenv.Node(t), "")
	id := e2eTrusted(t, bin, home, src)
	e2eMust(t, bin, home, "plugin", "enable", id)

	if r := e2eCWX(t, bin, home, "", "tool", "call", "mcp_kit-server_echo", "--input", `{"text":"x"}`); r.code != ExitUnavailable {
		t.Fatalf("an untrusted plugin server ran: %s", r.stdout)
	}
	var rv struct {
		Name, Plugin, Token, Identity string
		Command, Env                  []string
		Trusted                       bool
	}
	if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "mcp", "review", "kit-server", "--json").stdout), &rv); err != nil {
		t.Fatal(err)
	}
	if rv.Plugin != id || rv.Trusted || rv.Token == "" || len(rv.Command) != 3 || strings.Contains(rv.Command[2], "${CLAUDE_PLUGIN_ROOT}") ||
		len(rv.Env) != 1 || rv.Env[0] != mcptest.ModeEnv {
		t.Fatalf("review = %+v", rv)
	}
	if r := e2eCWX(t, bin, home, "", "mcp", "trust", "kit-server", "--token", "mcp1-wrong"); r.code != ExitDenied {
		t.Fatalf("a wrong token: exit %d %s", r.code, r.stderr)
	}
	e2eMust(t, bin, home, "mcp", "trust", "kit-server", "--token", rv.Token)
	if r := e2eMust(t, bin, home, "tool", "call", "mcp_kit-server_echo", "--input", `{"text":"from the plugin"}`, "--approve", "auto"); strings.TrimSpace(r.stdout) != "from the plugin" {
		t.Fatalf("trusted call: %q %q", r.stdout, r.stderr)
	}
	if r := e2eMust(t, bin, home, "mcp", "list"); !strings.Contains(r.stdout, "kit-server") {
		t.Fatalf("list:\n%s", r.stdout)
	}
}

// TestMCPCoreKilledLeavesNoServer: when the core is killed outright, an MCP server's keeper
// sees its lifeline end and kills the server and a process the server started in a session
// of its own.
func TestMCPCoreKilledLeavesNoServer(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := e2eHome(t, testenv.Node(t), fmt.Sprintf("[mcp.servers.t]\ncommand = %q\nenv = {%s = \"tools\"}\napproval = \"auto\"\n", exe, mcptest.ModeEnv))
	p := startLines(t, bin, home, "repl", "--approve", "auto")
	cmd := p.cmd
	p.send("/call mcp_t_orphan {}")
	orphan, _ := strconv.Atoi(p.expect(regexp.MustCompile(`^\s*(\d{2,})\s*$`))[1])
	t.Cleanup(func() { _ = syscall.Kill(orphan, syscall.SIGKILL) })
	server := serverOf(t, cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for what, pid := range map[string]int{"the server's keeper": server, "the server's detached child": orphan} {
		gone := false
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && !gone; time.Sleep(20 * time.Millisecond) {
			gone = errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
		}
		if !gone {
			t.Errorf("%s (pid %d) outlived the killed core by 10 s", what, pid)
		}
	}
}

// serverOf finds the MCP server's keeper among the children of core: the one running
// `nodeshim keep`.
func serverOf(t *testing.T, core int) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 || !strings.Contains(string(argv), "nodeshim\x00keep\x00") {
			continue
		}
		if f := strings.Fields(string(stat[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(core) {
			return pid
		}
	}
	t.Fatalf("no keeper below the core %d", core)
	return 0
}
