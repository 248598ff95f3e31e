package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// cpuTicks is the CPU time pid has used, in clock ticks (utime + stime of /proc/pid/stat).
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // from the third field on
	ut, err1 := strconv.Atoi(f[11])
	st, err2 := strconv.Atoi(f[12])
	if err1 != nil || err2 != nil {
		t.Fatalf("parse %s: %v %v", s, err1, err2)
	}
	return ut + st
}

// bearer adds the serve token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// busyServe is a `cwx serve --mcp` process and the sessions of its clients.
type busyServe struct {
	cmd      *exec.Cmd
	done     chan error
	stderr   *testenv.Buffer
	sessions []*mcp.ClientSession
}

// startBusyServe starts `cwx serve --mcp` (over HTTP when overHTTP) and connects clients.
func startBusyServe(t *testing.T, bin, home string, overHTTP bool, clients int) *busyServe {
	t.Helper()
	args := []string{"serve", "--mcp"}
	if overHTTP {
		args = append(args, "--http", "127.0.0.1:0")
	}
	s := &busyServe{cmd: exec.Command(bin, args...), done: make(chan error, 1), stderr: &testenv.Buffer{}}
	s.cmd.Env = append(os.Environ(), "CWX_HOME="+home)
	s.cmd.Dir = t.TempDir()
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.stderr.Write([]byte(sc.Text() + "\n"))
			select {
			case lines <- sc.Text():
			default:
			}
		}
		s.done <- s.cmd.Wait()
	}()
	t.Cleanup(func() {
		for _, cs := range s.sessions {
			_ = cs.Close()
		}
		_ = s.cmd.Process.Kill()
		<-s.done
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "cwx-term", Version: "1"}, nil)
	if !overHTTP {
		cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, s.stderr)
		}
		s.sessions = append(s.sessions, cs)
		return s
	}
	urlRE := regexp.MustCompile(`MCP streamable HTTP at (http://\S+)`)
	tokenRE := regexp.MustCompile(`bearer token: ([0-9a-f]{64})`)
	var url, token string
	for url == "" || token == "" {
		select {
		case l := <-lines:
			if m := urlRE.FindStringSubmatch(l); m != nil {
				url = m[1]
			}
			if m := tokenRE.FindStringSubmatch(l); m != nil {
				token = m[1]
			}
		case <-ctx.Done():
			t.Fatalf("serve --http printed no address and token\n%s", s.stderr)
		}
	}
	for range clients {
		tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}
		cs, err := client.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, s.stderr)
		}
		s.sessions = append(s.sessions, cs)
	}
	return s
}

// waitTool waits until the session lists name.
func waitTool(t *testing.T, cs *mcp.ClientSession, name string) {
	t.Helper()
	for range 300 {
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if tool.Name == name {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s is not listed", name)
}

// bigInput is {"xs":[0,0,…]} with a million items: minutes of validation against the
// costly-schema fixture's tool, whose schema is admitted (each item costs 999 evaluations,
// just under the per-value bound).
var bigInput = `{"xs":[0` + strings.Repeat(",0", 1<<20-1) + `]}`

// termWhileBusy waits until pid has spent 3 s of CPU since base (busy with the validation),
// calls leave (the clients going away, or nothing), sends SIGTERM and waits for the exit
// on done: generously, the grace after SIGTERM plus a minute, with no other timing checked.
func termWhileBusy(t *testing.T, cmd *exec.Cmd, base int, done chan error, called <-chan error, stderr *testenv.Buffer, leave func()) {
	t.Helper()
	pid := cmd.Process.Pid
	limit := time.After(2 * time.Minute)
	for cpuTicks(t, pid)-base < 300 { // 3 s at the usual 100 ticks a second
		select {
		case err := <-called:
			t.Fatalf("the call ended before cwx was busy with it: %v\n%s", err, stderr)
		case <-limit:
			t.Fatalf("cwx did not get busy with the call\n%s", stderr)
		case <-time.After(100 * time.Millisecond):
		}
	}
	leave()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		done <- nil // for the cleanup
	case <-time.After(termGrace + time.Minute):
		t.Fatalf("cwx did not exit after SIGTERM while validating\n%s", stderr)
	}
	t.Logf("%v\n%s", cmd.ProcessState, stderr)
}

// TestSIGTERMWhileValidating: SIGTERM ends the real cwx, plugin tiers on Node and Bun, while
// it is busy validating a call's input: `cwx serve --mcp` over stdio, and over HTTP with
// two calls whose clients then left; `cwx tool call`; `cwx repl`.
func TestSIGTERMWhileValidating(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "costly-schema"))
	if err != nil {
		t.Fatal(err)
	}
	var xs struct{ Xs []int }
	if err := json.Unmarshal([]byte(bigInput), &xs); err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, fixture))
			for _, overHTTP := range []bool{false, true} {
				name := "serve stdio"
				if overHTTP {
					name = "serve http"
				}
				t.Run(name, func(t *testing.T) {
					clients := 1
					if overHTTP {
						clients = 2
					}
					s := startBusyServe(t, bin, home, overHTTP, clients)
					waitTool(t, s.sessions[0], "costly_sum")
					base := cpuTicks(t, s.cmd.Process.Pid)
					called := make(chan error, clients)
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					for _, cs := range s.sessions {
						go func() {
							_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "costly_sum", Arguments: map[string]any{"xs": xs.Xs}})
							called <- err
						}()
					}
					termWhileBusy(t, s.cmd, base, s.done, called, s.stderr, func() {
						if overHTTP { // the clients leave
							cancel()
							for _, cs := range s.sessions {
								_ = cs.Close()
							}
						}
					})
				})
			}
			input := filepath.Join(t.TempDir(), "input.json")
			if err := os.WriteFile(input, []byte(bigInput), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name  string
				args  []string
				stdin string
			}{
				{"tool call", []string{"tool", "call", "costly_sum", "--input-file", input, "--approve", "deny"}, ""},
				{"repl", []string{"repl", "--approve", "deny"}, "/call costly_sum " + bigInput + "\n"},
			} {
				t.Run(c.name, func(t *testing.T) {
					cmd := exec.Command(bin, c.args...)
					cmd.Env = append(os.Environ(), "CWX_HOME="+home)
					cmd.Dir = t.TempDir()
					stderr := &testenv.Buffer{}
					cmd.Stderr = stderr
					stdin, err := cmd.StdinPipe()
					if err != nil {
						t.Fatal(err)
					}
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					done := make(chan error, 1)
					go func() { done <- cmd.Wait() }()
					t.Cleanup(func() {
						_ = cmd.Process.Kill()
						<-done
					})
					base := cpuTicks(t, cmd.Process.Pid)
					go func() { _, _ = io.WriteString(stdin, c.stdin) }() // stdin stays open: the repl waits for more
					termWhileBusy(t, cmd, base, done, nil, stderr, func() {})
				})
			}
		})
	}
}

// TestCyclicSchemaRefusedEndToEnd: a plugin (Node and Bun) registering the allOf-of-two-$refs
// cycle (an input nested 22 deep took seconds to validate, 40 deep hours) is refused at
// registration: the listing names the plugin failed with the schema's pointer and what to do,
// and a call to the tool is unavailable (exit 5), answered at once.
func TestCyclicSchemaRefusedEndToEnd(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "cyclic-schema"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			id := e2eTrusted(t, bin, home, fixture)
			e2eMust(t, bin, home, "plugin", "enable", id)
			r := e2eCWX(t, bin, home, "", "tool", "list")
			if r.code != ExitPlugin || !strings.Contains(r.stdout, id+"  failed: ") || !strings.Contains(r.stdout, "#/$defs/a") {
				t.Fatalf("tool list: exit %d\n%s%s", r.code, r.stdout, r.stderr) // before a call that would validate for hours
			}
			show := e2eCWX(t, bin, home, "", "plugin", "show", id)
			if !strings.Contains(show.stdout, "the schema at #/$defs/a applies its subschemas (allOf/0, allOf/1)") || !strings.Contains(show.stdout, "Apply each definition once per value") {
				t.Fatalf("plugin show: exit %d\n%s%s", show.code, show.stdout, show.stderr)
			}
			deep := `{"x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`
			if call := e2eCWX(t, bin, home, "", "tool", "call", "cyclic_nest", "--input", deep, "--approve", "deny"); call.code != ExitUnavailable {
				t.Errorf("tool call: exit %d\n%s%s", call.code, call.stdout, call.stderr)
			}
		})
	}
}

// TestSIGTERMIdleRepl: a repl waiting for its next line ends on SIGTERM without running out
// the grace (the terminator's "still running" line would say it did).
func TestSIGTERMIdleRepl(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	cmd := exec.Command(bin, "repl")
	cmd.Env = append(os.Environ(), "CWX_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe() // kept open: the repl waits for a line
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	banner, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(banner, "cwx repl: ") {
		t.Fatalf("banner %q: %v", banner, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if strings.Contains(stderr.String(), "after SIGTERM") {
		t.Errorf("the idle repl ran out the grace:\n%s", stderr.String())
	}
}
