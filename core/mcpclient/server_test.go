package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/catalog"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// testSet is a Set of one server "t" that runs this test binary as the test server in mode.
func testSet(t *testing.T, mode string, edit func(*config.MCPServer), o Options) (*Set, *Server, *testenv.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.MCPServer{Name: "t", Command: exe, Env: map[string]string{serverModeEnv: mode},
		Approval: config.MCPApprovalAsk, TimeoutS: 30, MaxResultBytes: config.DefaultMCPResultBytes}
	if edit != nil {
		edit(&cfg)
	}
	logs := &testenv.Buffer{}
	o.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
	if o.Workspace == "" {
		o.Workspace = t.TempDir()
	}
	set := NewSet(map[string]config.MCPServer{"t": cfg}, o)
	t.Cleanup(set.Close)
	srv, _ := set.Server("t")
	return set, srv, logs
}

func toolNames(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

func text(t *testing.T, srv *Server, tool string, input string) string {
	t.Helper()
	res, err := srv.Call(context.Background(), tool, json.RawMessage(input), nil)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(interface{ MarshalJSON() ([]byte, error) }); ok {
			_ = tc
		}
		raw, _ := json.Marshal(c)
		var v struct{ Text string }
		_ = json.Unmarshal(raw, &v)
		b.WriteString(v.Text)
	}
	return b.String()
}

func TestStartListsAndCalls(t *testing.T) {
	set, srv, _ := testSet(t, "tools", nil, Options{})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	names := strings.Join(toolNames(srv.Tools()), " ")
	// more than the page size of 2: tools/list pages were followed
	for _, want := range []string{"mcp_t_echo", "mcp_t_sleep", "mcp_t_env", "mcp_t_structured", "mcp_t_a_b_"} {
		if !strings.Contains(names, want) {
			t.Errorf("tools %q lack %s", names, want)
		}
	}
	if got := text(t, srv, "echo", `{"text":"hi"}`); got != "hi" {
		t.Fatalf("echo = %q", got)
	}
	st := srv.Status()
	if st.State != StateReady || st.PID == 0 || st.Instructions != "use echo" || st.Restarts != 0 {
		t.Fatalf("status = %+v", st)
	}
	mapped := ""
	for _, tl := range srv.Tools() {
		if tl.Wire == "a.b" {
			mapped = tl.Name
		}
	}
	got, tool, ok := set.Lookup(mapped)
	if !ok || got != srv || tool.Wire != "a.b" || tool.HookName() != "mcp__t__a.b" {
		t.Fatalf("Lookup(%q) = %v %+v %v", mapped, got, tool, ok)
	}
	if got := text(t, srv, tool.Wire, `{}`); got != "dotted" {
		t.Fatalf("a.b = %q", got)
	}
}

func TestEnvironmentScrubbed(t *testing.T) {
	t.Setenv("CWX_TEST_SECRET", "leak")
	_, srv, _ := testSet(t, "tools", func(c *config.MCPServer) { c.Env["OWN_VAR"] = "mine" }, Options{})
	env := text(t, srv, "env", `{}`)
	if strings.Contains(env, "CWX_TEST_SECRET") {
		t.Fatalf("the core's environment leaked:\n%s", env)
	}
	for _, want := range []string{"OWN_VAR=mine", "PATH="} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %s:\n%s", want, env)
		}
	}
}

func TestProgressAndCancellation(t *testing.T) {
	_, srv, logs := testSet(t, "tools", nil, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []string
	call := &Call{Progress: func(p, total float64, msg string) {
		mu.Lock()
		got = append(got, msg)
		mu.Unlock()
		cancel()
	}}
	start := time.Now()
	_, err := srv.Call(ctx, "sleep", json.RawMessage(`{"seconds":60}`), call)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the cancelled call took %s", d)
	}
	mu.Lock()
	if len(got) != 1 || got[0] != "half" {
		t.Errorf("progress = %q", got)
	}
	mu.Unlock()
	waitFor(t, func() bool { return strings.Contains(logs.String(), "sleep cancelled") }, "the server to see the cancellation")
	if got := text(t, srv, "echo", `{"text":"still"}`); got != "still" {
		t.Fatalf("after the cancel: %q", got)
	}
}

func TestStructuredContent(t *testing.T) {
	_, srv, _ := testSet(t, "tools", nil, Options{})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	tools := map[string]Tool{}
	for _, tl := range srv.Tools() {
		tools[tl.Wire] = tl
	}
	res, err := srv.Call(context.Background(), "structured", json.RawMessage(`{"a":2,"b":3}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Blocks(tools["structured"], res); err != nil || !strings.Contains(string(res.Structured), `"sum":5`) {
		t.Fatalf("structured: %s, %v", res.Structured, err)
	}
	res, err = srv.Call(context.Background(), "badstruct", json.RawMessage(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Blocks(tools["badstruct"], res); err == nil || !strings.Contains(err.Error(), "outputSchema") {
		t.Fatalf("badstruct: err = %v, want an outputSchema refusal", err)
	}
}

func TestCrashRestartsOnNextCall(t *testing.T) {
	_, srv, _ := testSet(t, "tools", nil, Options{})
	if _, err := srv.Call(context.Background(), "crash", json.RawMessage(`{}`), nil); err == nil {
		t.Fatal("a call whose server died succeeded")
	}
	waitFor(t, func() bool { return srv.Status().State == StateCrashed }, "the crash to be seen")
	if st := srv.Status(); !strings.Contains(st.LastErr, "crashing on purpose") || st.PID != 0 {
		t.Fatalf("status = %+v, want the stderr tail in last_error", st)
	}
	if got := text(t, srv, "echo", `{"text":"back"}`); got != "back" {
		t.Fatalf("after the restart: %q", got)
	}
	if st := srv.Status(); st.Restarts != 1 || st.State != StateReady {
		t.Fatalf("status = %+v", st)
	}
}

func TestContained(t *testing.T) {
	for _, tc := range []struct {
		mode, says string
	}{
		{"crash-start", "giving up at start"},
		{"hang", "did not initialize"},
		{"flood", "initialize"},
		{"garbage", "initialize"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			_, srv, _ := testSet(t, tc.mode, nil, Options{StartTimeout: 2 * time.Second})
			var err error
			for range CrashLimit {
				err = srv.Start(context.Background())
				if err == nil {
					t.Fatal("a broken server started")
				}
				if !errors.Is(err, errdefs.ErrNotAvailable) || !strings.Contains(err.Error(), `mcp server "t"`) || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("err = %v, want NotAvailable naming the server and %q", err, tc.says)
				}
			}
			st := srv.Status()
			if st.State != StateFailed || st.PID != 0 {
				t.Fatalf("after %d failures: %+v", CrashLimit, st)
			}
			if err := srv.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "failed 3 times") {
				t.Fatalf("a failed server: %v", err)
			}
		})
	}
}

func TestSamplingRefused(t *testing.T) {
	_, srv, _ := testSet(t, "sample", nil, Options{})
	if got := text(t, srv, "ask", `{}`); got != "sampling answered -32601" {
		t.Fatalf("ask = %q", got)
	}
}

func TestCollisionsRefusedByName(t *testing.T) {
	_, srv, _ := testSet(t, "collide", nil, Options{})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if names := toolNames(srv.Tools()); len(names) != 1 || names[0] != "mcp_t_ok" {
		t.Fatalf("tools = %v", names)
	}
	st := srv.Status()
	if len(st.Refused) != 2 || st.Refused[0].Wire != "get-env" || st.Refused[1].Wire != "get_env" || !strings.Contains(st.Refused[0].Reason, `"get_env"`) {
		t.Fatalf("refused = %+v", st.Refused)
	}
}

func TestListChangedReadmits(t *testing.T) {
	changed := make(chan string, 16)
	_, srv, _ := testSet(t, "tools", nil, Options{ToolsChanged: func(s string) { changed <- s }})
	if got := text(t, srv, "add_tool", `{}`); got != "added" {
		t.Fatalf("add_tool = %q", got)
	}
	waitFor(t, func() bool { return strings.Contains(strings.Join(toolNames(srv.Tools()), " "), "mcp_t_late") }, "list_changed to re-admit")
	if got := text(t, srv, "late", `{}`); got != "late" {
		t.Fatalf("late = %q", got)
	}
	if s := <-changed; s != "t" {
		t.Fatalf("changed %q", s)
	}
}

func TestAllowList(t *testing.T) {
	_, srv, _ := testSet(t, "tools", func(c *config.MCPServer) { c.Tools = []string{"echo"} }, Options{})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if names := toolNames(srv.Tools()); len(names) != 1 || names[0] != "mcp_t_echo" {
		t.Fatalf("tools = %v", names)
	}
}

func TestResultBound(t *testing.T) {
	_, srv, _ := testSet(t, "tools", func(c *config.MCPServer) { c.MaxResultBytes = 1024 }, Options{})
	_, err := srv.Call(context.Background(), "echo", json.RawMessage(`{"text":"`+strings.Repeat("y", 2000)+`"}`), nil)
	if err == nil || !strings.Contains(err.Error(), "max_result_bytes is 1024") {
		t.Fatalf("err = %v", err)
	}
}

func TestCloseEndsTheProcess(t *testing.T) {
	set, srv, _ := testSet(t, "tools", nil, Options{})
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := srv.Status().PID
	set.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("server %d still there after Close: %v", pid, err)
	}
	if st := srv.Status(); st.State != StateStopped {
		t.Fatalf("state %s", st.State)
	}
}

func TestCatalogAnswersWithoutStarting(t *testing.T) {
	store := catalog.Open(t.TempDir(), nil)
	set, srv, _ := testSet(t, "tools", nil, Options{Catalog: store})
	if _, ok := set.Cached("t"); ok {
		t.Fatal("cached before any start")
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	set.Close()
	again, _, _ := testSet(t, "tools", nil, Options{Catalog: store})
	tools, ok := again.Cached("t")
	if !ok || len(tools) < 5 {
		t.Fatalf("cached = %v, %v", tools, ok)
	}
	if st := again.Statuses()[0]; st.State != StateIdle || st.PID != 0 {
		t.Fatalf("a cached listing started the server: %+v", st)
	}
	other, _, _ := testSet(t, "tools", func(c *config.MCPServer) { c.Args = []string{"-x"} }, Options{Catalog: store})
	if _, ok := other.Cached("t"); ok {
		t.Fatal("a server with other args found the cache")
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	_, srv, _ := testSet(t, "tools", nil, Options{})
	rs, err := srv.Resources(context.Background())
	if err != nil || len(rs) != 1 || rs[0].URI != "test://readme" || rs[0].MimeType != "text/plain" {
		t.Fatalf("resources = %+v, %v", rs, err)
	}
	ps, err := srv.Prompts(context.Background())
	if err != nil || len(ps) != 1 || ps[0].Name != "greet" || len(ps[0].Arguments) != 1 || ps[0].Arguments[0] != "who" {
		t.Fatalf("prompts = %+v, %v", ps, err)
	}
	_, sample, _ := testSet(t, "sample", nil, Options{})
	if rs, err := sample.Resources(context.Background()); err != nil || rs != nil {
		t.Fatalf("a server without resources: %v, %v", rs, err)
	}
}

func TestElicitationDuringACall(t *testing.T) {
	_, srv, _ := testSet(t, "tools", nil, Options{})
	var asked string
	call := &Call{Elicit: func(_ context.Context, msg string, schema json.RawMessage) (Elicited, error) {
		asked = msg + " " + string(schema)
		return Elicited{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	res, err := srv.Call(context.Background(), "ask_name", json.RawMessage(`{}`), call)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.Content)
	if !strings.Contains(string(raw), "accept:Ada") || !strings.Contains(asked, "Your name?") || !strings.Contains(asked, `"name"`) {
		t.Fatalf("result %s, asked %q", raw, asked)
	}
	// without an Elicit of its own the call declines
	res, err = srv.Call(context.Background(), "ask_name", json.RawMessage(`{}`), nil)
	raw, _ = json.Marshal(res.Content)
	if err != nil || !strings.Contains(string(raw), "decline:") {
		t.Fatalf("no elicitor: %s %v", raw, err)
	}
}

// TestServerDiesWithTheCore: a server that ignores stdin's EOF and SIGTERM is still killed
// when the process that runs it (a stand-in core) is SIGKILLed: its death signal (Linux).
func TestServerDiesWithTheCore(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command(exe)
	holder.Env = append(os.Environ(), holderEnv+"=1")
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = holder.Process.Kill()
		_ = holder.Wait()
		t.Fatalf("holder: %q %v", line, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		_ = holder.Process.Kill()
		_ = holder.Wait()
		t.Fatalf("holder said %q", line)
	}
	_ = holder.Process.Kill()
	_ = holder.Wait()
	waitFor(t, func() bool { return syscall.Kill(pid, 0) != nil }, fmt.Sprintf("server %d to die with its core", pid))
}
