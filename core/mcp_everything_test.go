package core

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// everythingServer is the entry of the pinned @modelcontextprotocol/server-everything
// (testdata/mcp-servers, installed from its lockfile by `make mcp-servers`). A missing one
// fails the test under CI and skips it elsewhere.
func everythingServer(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "testdata", "mcp-servers", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		if testenv.InCI() {
			t.Fatalf("server-everything is not installed: run `make mcp-servers` (%v)", err)
		}
		t.Skipf("server-everything is not installed: run `make mcp-servers` (%v)", err)
	}
	return p
}

// TestMCPServerEverything runs the real reference server over stdio: its tools are admitted
// (list_changed re-admits the ones it registers once it knows the client's capabilities: roots
// and elicitation, never sampling), echo answers through the gate, the environment it sees is
// the scrubbed one, structuredContent meets its outputSchema, an image block passes the content
// policy, the long operation reports progress and is cancelled, roots are the workspace only,
// and it lists resources and prompts.
func TestMCPServerEverything(t *testing.T) {
	entry := everythingServer(t)
	node := testenv.Node(t)
	t.Setenv("CWX_TEST_SECRET", "must not leak")
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	e.writeConfig(fmt.Sprintf("[mcp.servers.everything]\ncommand = %q\nargs = [%q, \"stdio\"]\napproval = \"auto\"\n", node.Path, entry))
	m := e.open(func(o *Options) { o.PollInterval, o.Approval = -1, "ask" })
	ctx := context.Background()
	call := func(tool, input string, opts CallOptions) ToolResult {
		t.Helper()
		res, err := m.CallTool(ctx, "mcp_everything_"+tool, json.RawMessage(input), opts)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res
	}
	if got := call("echo", `{"message":"hi"}`, CallOptions{}).Text(); got != "Echo: hi" {
		t.Fatalf("echo = %q", got)
	}
	names := func() []string {
		var out []string
		for _, ti := range m.Tools() {
			if strings.HasPrefix(ti.Name, "mcp_everything_") {
				out = append(out, strings.TrimPrefix(ti.Name, "mcp_everything_"))
			}
		}
		return out
	}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(names(), "get-roots-list") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	got := names()
	for _, want := range []string{"echo", "get-env", "get-structured-content", "get-tiny-image", "trigger-long-running-operation", "get-roots-list", "trigger-elicitation-request"} {
		if !slices.Contains(got, want) {
			t.Errorf("tools %v lack %s", got, want)
		}
	}
	if slices.Contains(got, "trigger-sampling-request") {
		t.Errorf("the server offers sampling tools: cwx advertised sampling (%v)", got)
	}

	var env map[string]string
	if err := json.Unmarshal([]byte(call("get-env", `{}`, CallOptions{}).Text()), &env); err != nil {
		t.Fatal(err)
	}
	for k := range env {
		if !slices.Contains(mcpclient.AllowedEnv, k) {
			t.Errorf("the server sees %s: not in the allow-list", k)
		}
	}
	if env["PATH"] == "" {
		t.Error("the server has no PATH")
	}

	res := call("get-structured-content", `{"location":"Chicago"}`, CallOptions{})
	if !strings.Contains(string(res.Structured), "temperature") {
		t.Errorf("structured = %s", res.Structured)
	}
	img := call("get-tiny-image", `{}`, CallOptions{})
	if !slices.ContainsFunc(img.Content, func(b ContentBlock) bool { return b.Type == protocol.ContentImage && b.MimeType == "image/png" }) {
		t.Errorf("get-tiny-image content = %+v", img.Content)
	}

	var mu sync.Mutex
	steps := 0
	done := call("trigger-long-running-operation", `{"duration":1,"steps":2}`, CallOptions{Progress: func(p, total float64, _ string) {
		mu.Lock()
		steps++
		mu.Unlock()
	}})
	mu.Lock()
	// The last step may be handled after the result and is then dropped (mcpclient's doc).
	if steps < 1 || steps > 2 || !strings.Contains(done.Text(), "completed") {
		t.Errorf("progress steps %d, result %q", steps, done.Text())
	}
	mu.Unlock()
	cctx, cancel := context.WithCancel(ctx)
	start := time.Now()
	_, err := m.CallTool(cctx, "mcp_everything_trigger-long-running-operation", json.RawMessage(`{"duration":60,"steps":60}`),
		CallOptions{Progress: func(float64, float64, string) { cancel() }})
	cancel()
	if !errors.Is(err, ErrCancelled) || time.Since(start) > 15*time.Second {
		t.Errorf("cancelled operation: %v after %s", err, time.Since(start))
	}

	// Its 13-field elicitation form is asked field by field: a bad email is asked again, the
	// optional fields skipped get the server's defaults, and decline declines the form.
	var asked []Question
	emails := 0
	form := call("trigger-elicitation-request", `{}`, CallOptions{Asker: askerFunc(func(_ context.Context, q Question) (Answer, error) {
		asked = append(asked, q)
		switch {
		case q.PluginID != "mcp:everything" || q.Name != "mcp_everything_trigger-elicitation-request":
			t.Errorf("question attributed to %s %s", q.PluginID, q.Name)
		case strings.Contains(q.Text, "full, legal name"):
			return Answer{Kind: AnswerText, Text: "Ada Lovelace"}, nil
		case strings.Contains(q.Text, "terms and conditions"):
			return Answer{Kind: AnswerChoice, Choice: "yes"}, nil
		case strings.Contains(q.Text, "Your email address"):
			if emails++; emails == 1 {
				return Answer{Kind: AnswerText, Text: "not-an-email"}, nil
			}
			if !strings.HasPrefix(q.Text, "Not accepted: ") {
				t.Errorf("the email asked again without the reason: %q", q.Text)
			}
			return Answer{Kind: AnswerText, Text: "ada@example.com"}, nil
		case strings.Contains(q.Text, "favorite integer"):
			return Answer{Kind: AnswerText, Text: "7"}, nil
		case strings.Contains(q.Text, "favorite instruments"):
			return Answer{Kind: AnswerText, Text: "Piano, Drums"}, nil
		case strings.Contains(q.Text, "favorite hero"):
			return Answer{Kind: AnswerChoice, Choice: "Wonder Woman"}, nil
		}
		return Answer{Kind: AnswerChoice, Choice: "skip"}, nil
	})}).Text()
	for _, want := range []string{"User provided the requested information", "Name: Ada Lovelace", "Agreed to terms: true", "Email: ada@example.com",
		"Favorite Integer: 7", `"Piano"`, `"Drums"`, `"hero-3"`} {
		if !strings.Contains(form, want) {
			t.Errorf("elicitation result lacks %q:\n%s", want, form)
		}
	}
	if want := "Please provide inputs for the following fields:\n\nField 1 of 13: String (required)\nYour full, legal name"; len(asked) != 14 || emails != 2 || asked[0].Text != want {
		t.Errorf("%d questions, %d for the email; the first %q", len(asked), emails, asked[0].Text)
	}
	asked = nil
	declined := call("trigger-elicitation-request", `{}`, CallOptions{Asker: askerFunc(func(_ context.Context, q Question) (Answer, error) {
		asked = append(asked, q)
		return Answer{Kind: AnswerChoice, Choice: "decline"}, nil
	})}).Text()
	if !strings.Contains(declined, "User declined to provide the requested information") || len(asked) != 1 {
		t.Errorf("declined after %d questions: %s", len(asked), declined)
	}

	wd, _ := os.Getwd()
	if roots := call("get-roots-list", `{}`, CallOptions{}).Text(); !strings.Contains(roots, wd) || !strings.Contains(roots, "1 total") {
		t.Errorf("roots:\n%s\nwant exactly the workspace %s", roots, wd)
	}
	if rs, err := m.MCP().Resources(ctx, "everything"); err != nil || len(rs) == 0 {
		t.Errorf("resources: %d, %v", len(rs), err)
	}
	if ps, err := m.MCP().Prompts(ctx, "everything"); err != nil || len(ps) == 0 {
		t.Errorf("prompts: %d, %v", len(ps), err)
	}
	st := m.MCP().List()[0]
	if st.State != mcpclient.StateReady || st.PID == 0 || !strings.Contains(st.Instructions, "Everything Server") || st.Restarts != 0 {
		t.Errorf("status = %+v", st)
	}
}

// TestMCPServerFilesystem runs the real filesystem server with no folder on its command line:
// it takes the one root cwx offers, the workspace, reads a file in it and refuses one outside.
func TestMCPServerFilesystem(t *testing.T) {
	entry := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(everythingServer(t)))), "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		if testenv.InCI() {
			t.Fatalf("server-filesystem is not installed: run `make mcp-servers` (%v)", err)
		}
		t.Skipf("server-filesystem is not installed: run `make mcp-servers` (%v)", err)
	}
	node := testenv.Node(t)
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	e.writeConfig(fmt.Sprintf("[mcp.servers.fs]\ncommand = %q\nargs = [%q]\napproval = \"auto\"\n", node.Path, entry))
	m := e.open(func(o *Options) { o.PollInterval, o.Approval = -1, "ask" })
	ctx := context.Background()
	wd, _ := os.Getwd()
	var dirs string
	deadline := time.Now().Add(10 * time.Second)
	for { // the server asks for the roots after initialize
		res, err := m.CallTool(ctx, "mcp_fs_list_allowed_directories", json.RawMessage(`{}`), CallOptions{})
		if err == nil {
			dirs = res.Text()
		}
		if strings.Contains(dirs, wd) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(dirs, wd) {
		t.Fatalf("allowed directories %q, want the workspace %s", dirs, wd)
	}
	res, err := m.CallTool(ctx, "mcp_fs_read_text_file", json.RawMessage(fmt.Sprintf(`{"path":%q}`, filepath.Join(wd, "doc.go"))), CallOptions{})
	if err != nil || !strings.Contains(res.Text(), "Package core") {
		t.Fatalf("read doc.go: %v %.80q", err, res.Text())
	}
	res, err = m.CallTool(ctx, "mcp_fs_read_text_file", json.RawMessage(`{"path":"/etc/hostname"}`), CallOptions{})
	if err == nil && !res.IsError {
		t.Fatalf("a file outside the workspace was read: %.80q", res.Text())
	}
}

// everythingHTTP starts the real reference server in its Streamable HTTP mode on a free
// loopback port and returns its endpoint; the server is killed at the end of the test.
func everythingHTTP(t *testing.T, entry string, node testenv.Runtime) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node.Path, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan error, 1)
	go func() { // ends when the server's stderr closes, at its kill
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- nil
			}
		}
		ready <- fmt.Errorf("server-everything ended before it listened")
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything did not listen within 30 s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestMCPServerEverythingHTTP reaches the real reference server over Streamable HTTP on
// loopback, through the gate: the card names the server's URL, echo answers once approved,
// progress passes through, and the header's token (from ${env:…}) is in no log line.
func TestMCPServerEverythingHTTP(t *testing.T) {
	entry := everythingServer(t)
	node := testenv.Node(t)
	endpoint := everythingHTTP(t, entry, node)
	t.Setenv("CWX_TEST_EVERYTHING_TOKEN", "tok-3b9e1c")
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	e.writeConfig(fmt.Sprintf("[mcp.servers.everything]\nurl = %q\nheaders = {Authorization = \"Bearer ${env:CWX_TEST_EVERYTHING_TOKEN}\"}\n", endpoint))
	logs := &testenv.Buffer{}
	m := e.open(func(o *Options) {
		o.PollInterval, o.Approval = -1, "ask"
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: io.MultiWriter(logs, &testWriter{t: t}), Level: hclog.Trace})
	})
	ctx := context.Background()
	var cards []ApprovalCard
	approve := ApproverFunc(func(_ context.Context, c ApprovalCard) (Decision, error) {
		cards = append(cards, c)
		return AllowOnce, nil
	})
	res, err := m.CallTool(ctx, "mcp_everything_echo", json.RawMessage(`{"message":"over http"}`), CallOptions{Approver: approve})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Text(); got != "Echo: over http" {
		t.Fatalf("echo = %q", got)
	}
	if len(cards) != 1 || !strings.Contains(strings.Join(cards[0].Notes, "\n"), endpoint) {
		t.Fatalf("cards = %+v, want one naming %s", cards, endpoint)
	}
	steps := 0
	var mu sync.Mutex
	done, err := m.CallTool(ctx, "mcp_everything_trigger-long-running-operation", json.RawMessage(`{"duration":1,"steps":2}`),
		CallOptions{Approver: approve, Progress: func(float64, float64, string) { mu.Lock(); steps++; mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if steps < 1 || !strings.Contains(done.Text(), "completed") {
		t.Errorf("progress steps %d, result %q", steps, done.Text())
	}
	mu.Unlock()
	st := m.MCP().List()[0]
	if st.State != mcpclient.StateReady || st.URL != endpoint || st.Transport != "http" {
		t.Errorf("status = %+v", st)
	}
	if strings.Contains(logs.String(), "tok-3b9e1c") {
		t.Fatal("the token is in the log")
	}
}
