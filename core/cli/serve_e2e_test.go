package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// mcpServe is one `cwx serve --mcp` subprocess with a Go SDK client session on its stdio.
type mcpServe struct {
	cmd      *exec.Cmd
	session  *mcp.ClientSession
	stdout   *testenv.Buffer
	stderr   *testenv.Buffer
	changed  chan struct{} // one value per tools/list_changed
	done     chan error    // the exit of cmd
	stopped  bool
	progress atomic.Int32
	answer   atomic.Value // the elicitation's decision; "" declines
	asked    atomic.Value // the last elicitation's message and its schema, as JSON
	askedN   atomic.Int32 // how many elicitations arrived
}

// startServe starts `cwx serve --mcp args…` under home and connects a client that answers
// elicitations when elicit is set.
func startServe(t testing.TB, bin, home string, elicit bool, args ...string) *mcpServe {
	t.Helper()
	s := &mcpServe{stdout: &testenv.Buffer{}, stderr: &testenv.Buffer{}, changed: make(chan struct{}, 16)}
	s.answer.Store("")
	s.asked.Store("")
	s.cmd = exec.Command(bin, append([]string{"serve", "--mcp"}, args...)...)
	s.cmd.Env = append(os.Environ(), "CWX_HOME="+home, "CWX_LOG=info")
	s.cmd.Dir = t.TempDir()
	s.cmd.Stderr = s.stderr
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.done = make(chan error, 1)
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.stopped {
			return
		}
		if s.session != nil {
			_ = s.session.Close()
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
	opts := &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { s.progress.Add(1) },
	}
	if elicit {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			schema, _ := json.Marshal(req.Params.RequestedSchema)
			s.asked.Store(req.Params.Message + "\n" + string(schema))
			s.askedN.Add(1)
			a := s.answer.Load().(string)
			if a == "" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": a}}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "cwx-e2e", Version: "1"}, opts)
	tr := &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, s.stdout)), Writer: stdin}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.session, err = client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.stderr)
	}
	return s
}

// stop closes the session (stdin EOF) and waits for serve to exit; it returns the exit
// status and how long the exit took.
func (s *mcpServe) stop(t testing.TB) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	_ = s.session.Close()
	s.stopped = true
	select {
	case err := <-s.done:
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, time.Since(start)
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		t.Fatalf("serve did not exit after stdin EOF\n%s", s.stderr)
		return -1, 0
	}
}

// waitProgress waits until a progress notification beyond the first n arrived.
func (s *mcpServe) waitProgress(t testing.TB, n int32) {
	t.Helper()
	limit := time.Now().Add(20 * time.Second)
	for s.progress.Load() == n {
		if time.Now().After(limit) {
			t.Fatalf("no progress notification\n%s", s.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitChanged waits for one list_changed and then for the tool list to have n tools.
func (s *mcpServe) waitTools(t *testing.T, n int) []*mcp.Tool {
	t.Helper()
	limit := time.After(20 * time.Second)
	for {
		select {
		case <-s.changed:
		case <-limit:
			t.Fatalf("no list_changed leading to %d tools\n%s", n, s.stderr)
		}
		res, err := s.session.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if tools := extensionTools(res.Tools); len(tools) == n {
			return tools
		}
	}
}

func (s *mcpServe) call(t testing.TB, ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	return s.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

func mcpText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// runtimePID finds the JS runtime of this run's plugin tier.
func runtimePID(t *testing.T, rtPath string) int {
	t.Helper()
	for _, p := range testenv.MarkedProcesses(testenv.Marker()) {
		f := strings.Fields(p)
		if len(f) > 2 && f[1] == rtPath && strings.Contains(p, "--tier=plugin") {
			pid, err := strconv.Atoi(f[0])
			if err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no plugin-tier runtime among %q", testenv.MarkedProcesses(testenv.Marker()))
	return 0
}

// TestServeMCPEndToEnd drives a real `cwx serve --mcp` over stdio with the Go SDK client, on
// Node and on Bun: the listing, calls approved by elicitation, a denial, invalid input, a
// plugin's failure, progress and cancellation reaching exec.signal, list_changed after a
// disable and an enable in another process and after kill -9 of the runtime, a client
// without elicitation, a clean stdout and the exit on stdin EOF.
func TestServeMCPEndToEnd(t *testing.T) {
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
			id := e2eTrusted(t, bin, home, fixture)
			e2eMust(t, bin, home, "plugin", "enable", id)
			s := startServe(t, bin, home, true)
			ctx := context.Background()

			list, err := s.session.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := extensionTools(list.Tools)
			if len(tools) != 4 {
				t.Fatalf("tools/list: %d extension tools of %d\n%s", len(tools), len(list.Tools), s.stderr)
			}
			for _, tool := range tools {
				if !strings.HasPrefix(tool.Description, "[extension:"+id+"] ") {
					t.Errorf("tool %s: description %q lacks its origin", tool.Name, tool.Description)
				}
			}

			cases := []struct {
				name, answer, tool string
				args               any
				isError            bool
				text               string
			}{
				{"allowed once", answerOnceForTest, "probe_echo", map[string]any{"text": "hi"}, false, `{"echo":"hi"}`},
				{"denied", "deny", "probe_echo", map[string]any{"text": "hi"}, true, "denied"},
				{"declined", "", "probe_echo", map[string]any{"text": "hi"}, true, "declined"},
				{"invalid input names the field", answerOnceForTest, "probe_echo", map[string]any{"text": 5}, true, "invalid input: input for tool `probe_echo` does not match its schema: /text"},
				{"plugin failure", answerOnceForTest, "probe_fail", map[string]any{}, true, "probe failed on purpose"},
			}
			for _, c := range cases {
				s.answer.Store(c.answer)
				res, err := s.call(t, ctx, c.tool, c.args)
				if err != nil || res.IsError != c.isError || !strings.Contains(mcpText(res), c.text) {
					t.Errorf("%s: %v isError=%v %q", c.name, err, res != nil && res.IsError, mcpText(orEmpty(res)))
				}
			}
			s.answer.Store(answerOnceForTest)
			if res, err := s.call(t, ctx, "probe_echo", map[string]any{"text": "hi"}); err != nil || !strings.Contains(string(mustJSON(t, res.StructuredContent)), `"echo":"hi"`) {
				t.Errorf("structuredContent: %v %+v", err, res)
			}
			if _, err := s.call(t, ctx, "no_such_tool", map[string]any{}); err == nil || !strings.Contains(err.Error(), `no live tool "no_such_tool": run `+"`cwx tool list`") {
				t.Errorf("unknown tool: %v", err)
			}

			// Progress, then the client's cancellation reaches the plugin's exec.signal.
			cctx, cancel := context.WithCancel(ctx)
			p := &mcp.CallToolParams{Name: "probe_wait", Arguments: map[string]any{"ms": 60000}}
			p.SetProgressToken("wait-1")
			done := make(chan error, 1)
			go func() { _, err := s.session.CallTool(cctx, p); done <- err }()
			for s.progress.Load() == 0 {
				select {
				case err := <-done:
					t.Fatalf("probe_wait ended before progress: %v", err)
				case <-time.After(50 * time.Millisecond):
				}
			}
			cancel()
			if err := <-done; err == nil {
				t.Fatal("a cancelled call returned no error")
			}
			aborts := ""
			for range 100 {
				res, err := s.call(t, ctx, "probe_aborts", map[string]any{})
				if err != nil {
					t.Fatal(err)
				}
				if aborts = mcpText(res); aborts == `{"aborts":1}` {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if aborts != `{"aborts":1}` {
				t.Errorf("exec.signal did not abort: %s", aborts)
			}

			// Another process disables and enables the plugin.
			e2eMust(t, bin, home, "plugin", "disable", id)
			s.waitTools(t, 0)
			e2eMust(t, bin, home, "plugin", "enable", id)
			s.waitTools(t, 4)

			// kill -9 of the runtime during a call: the call fails with a typed isError
			// result, the list follows the replay and the server stays up.
			p0 := s.progress.Load()
			p = &mcp.CallToolParams{Name: "probe_wait", Arguments: map[string]any{"ms": 60000}}
			p.SetProgressToken("wait-2")
			crashed := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, err := s.session.CallTool(ctx, p)
				if err != nil {
					t.Errorf("the call cut by the crash: %v", err)
				}
				crashed <- res
			}()
			s.waitProgress(t, p0)
			if err := syscall.Kill(runtimePID(t, rt.Path), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if res := <-crashed; res == nil || !res.IsError || !strings.Contains(mcpText(res), "the extension host exited during the call") {
				t.Errorf("the call cut by the crash: %+v %q", res, mcpText(orEmpty(res)))
			}
			s.waitTools(t, 4)
			if res, err := s.call(t, ctx, "probe_echo", map[string]any{"text": "again"}); err != nil || res.IsError {
				t.Errorf("call after the restart: %v %+v", err, res)
			}

			code, took := s.stop(t)
			if code != 0 || took > closeWait+2*time.Second {
				t.Errorf("serve exit %d after %s\n%s", code, took, s.stderr)
			}
			checkCleanStdout(t, s.stdout.String())
			if !strings.Contains(s.stderr.String(), "cwx serve: approval: ask") {
				t.Errorf("stderr does not say the approval choice:\n%s", s.stderr)
			}

			// A client without elicitation is refused with the flags that approve.
			s = startServe(t, bin, home, false)
			res, err := s.call(t, ctx, "probe_echo", map[string]any{"text": "hi"})
			if err != nil || !res.IsError || !strings.Contains(mcpText(res), "--approve auto --approve-extensions") {
				t.Errorf("no elicitation: %v %q", err, mcpText(orEmpty(res)))
			}
			// SIGTERM ends serve, and the tiers with it, within the close bound.
			start := time.Now()
			s.stopped = true
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-s.done:
				if err != nil || time.Since(start) > closeWait+2*time.Second {
					t.Errorf("serve after SIGTERM: %v after %s\n%s", err, time.Since(start), s.stderr)
				}
			case <-time.After(15 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.done
				t.Errorf("serve did not exit on SIGTERM\n%s", s.stderr)
			}
			_ = s.session.Close()
		})
	}
}

const answerOnceForTest = "allow_once"

// extensionTools keeps the tools whose description says they come from a plugin.
func extensionTools(all []*mcp.Tool) []*mcp.Tool {
	var out []*mcp.Tool
	for _, t := range all {
		if strings.HasPrefix(t.Description, "[extension:") {
			out = append(out, t)
		}
	}
	return out
}

func orEmpty(r *mcp.CallToolResult) *mcp.CallToolResult {
	if r == nil {
		return &mcp.CallToolResult{}
	}
	return r
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkCleanStdout fails unless every line serve wrote on stdout is a JSON-RPC message.
func checkCleanStdout(t *testing.T, out string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not a JSON-RPC message: %q", n+1, sc.Text())
		}
		n++
	}
	if n == 0 {
		t.Error("serve wrote nothing on stdout")
	}
}
