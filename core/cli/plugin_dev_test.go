package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// devProc is a running `cwx plugin dev` whose stdout is read line by line.
type devProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
}

func startDev(t *testing.T, bin, home, dir string, flags ...string) *devProc {
	t.Helper()
	return startLines(t, bin, home, append([]string{"plugin", "dev", dir}, flags...)...)
}

// startLines starts cwx with args under CWX_HOME=home, its stdout read line by line.
func startLines(t *testing.T, bin, home string, args ...string) *devProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CWX_HOME="+home)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &devProc{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 64)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return p
}

// expect returns the submatches of the first line matching re, failing after 20 s.
func (p *devProc) expect(re *regexp.Regexp) []string {
	p.t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("cwx plugin dev ended before printing %q", re)
			}
			p.t.Logf("dev: %s", line)
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-deadline.C:
			p.t.Fatalf("no line matching %q within 20s", re)
		}
	}
}

func (p *devProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

var devActive = regexp.MustCompile(`^my-greeter: generation (\d+) active in (\d+) ms: my_greeter_greet, /my-greeter$`)

// TestPluginDevReloadsOnEdit edits a plugin under `cwx plugin dev` and waits for the new
// generation and the new answer; while the session runs the plugin is listed and reviewed as
// dev, and once it ends nothing is trusted.
func TestPluginDevReloadsOnEdit(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			dir := filepath.Join(t.TempDir(), "my-greeter")
			if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
				t.Fatalf("plugin new: %d %s", r.code, r.stderr)
			}
			p := startDev(t, bin, home, dir)
			first, _ := strconv.Atoi(p.expect(devActive)[1])
			p.send("/my-greeter Bob")
			p.expect(regexp.MustCompile(`^Hello, Bob!$`))
			p.expect(regexp.MustCompile(`^\(/my-greeter in [0-9.]+ ms\)$`))
			p.send(`my_greeter_greet {"name":"Ada"}`)
			p.expect(regexp.MustCompile(`^\[my-greeter\] info: greeting Ada \(call `))
			p.expect(regexp.MustCompile(`^\{"text":"Hello, Ada!"\}$`))

			if out := e2eMust(t, bin, home, "plugin", "list").stdout; !regexp.MustCompile(`(?m)^my-greeter +0\.1\.0 +dev `).MatchString(out) {
				t.Fatalf("plugin list during the session:\n%s", out)
			}
			if out := e2eMust(t, bin, home, "plugin", "review", "my-greeter").stdout; !strings.Contains(out, "trust    dev: ") {
				t.Fatalf("plugin review during the session:\n%s", out)
			}

			src := filepath.Join(dir, "src", "index.ts")
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			edited := time.Now()
			next := strings.Replace(string(b), "'Hello'", "'Howdy'", 1)
			next = strings.Replace(next, "): void {\n", "): void {\n  console.info('console says %s', 'hi');\n", 1)
			if err := os.WriteFile(src, []byte(next), 0o644); err != nil {
				t.Fatal(err)
			}
			p.expect(regexp.MustCompile(`^\[my-greeter\] info: console says hi$`))
			m := p.expect(devActive)
			gen, _ := strconv.Atoi(m[1])
			if gen <= first {
				t.Fatalf("generation %d after the edit, %d before", gen, first)
			}
			t.Logf("%s: re-activated %s ms after the edit (%s to the printed line)", rt.Name, m[2], time.Since(edited).Round(time.Millisecond))
			p.send("/my-greeter Bob")
			p.expect(regexp.MustCompile(`^Howdy, Bob!$`))

			_ = p.stdin.Close()
			p.expect(regexp.MustCompile(`^dev session ended: my-greeter has no dev receipt any more$`))
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("cwx plugin dev: %v", err)
			}
			if out := e2eMust(t, bin, home, "plugin", "list").stdout; !regexp.MustCompile(`(?m)^my-greeter +0\.1\.0 +not trusted `).MatchString(out) {
				t.Fatalf("plugin list after the session:\n%s", out)
			}
			logs := e2eMust(t, bin, home, "logs", "my-greeter").stdout
			for _, want := range []string{"info  [my-greeter] greeting Ada (call ", "info  [my-greeter] console says hi\n"} {
				if !strings.Contains(logs, want) {
					t.Fatalf("cwx logs my-greeter lacks %q:\n%s", want, logs)
				}
			}
		})
	}
}

func TestPluginDevRefusesATarball(t *testing.T) {
	pluginHome(t)
	tgz := filepath.Join(t.TempDir(), "p.tgz")
	if err := os.WriteFile(tgz, []byte("not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPluginCLI(t, "plugin", "dev", tgz)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "is not a folder: cwx plugin dev runs a plugin folder") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// expectAll waits for a line matching each of res, in any order, and returns the submatches
// of each, in the order of res.
func (p *devProc) expectAll(res ...*regexp.Regexp) [][]string {
	p.t.Helper()
	got := make([][]string, len(res))
	left := append([]*regexp.Regexp{}, res...)
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for len(left) > 0 {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("cwx plugin dev ended before printing %q", left)
			}
			p.t.Logf("dev: %s", line)
			for i, re := range left {
				if m := re.FindStringSubmatch(line); m != nil {
					got[slices.Index(res, re)] = m
					left = append(left[:i], left[i+1:]...)
					break
				}
			}
		case <-deadline.C:
			p.t.Fatalf("no lines matching %q within 20s", left)
		}
	}
	return got
}

// hangingGreeter makes the scaffold's tool hang (logging first) when asked to greet "hang",
// and log from its abort listener when the call is cancelled; asked to greet "throw", it logs
// a stack trace and throws.
func hangingGreeter(src string) string {
	return strings.Replace(src, "      ctx.logger.info('greeting %s", `      if (args.name === 'hang') {
        exec.signal.addEventListener('abort', () => console.log('abort seen for %s', exec.callId));
        console.log('hanging in %s', exec.workspace);
        return new Promise(() => {});
      }
      if (args.name === 'throw') {
        console.error(new Error('traced').stack);
        throw new Error('thrown');
      }
      ctx.logger.info('greeting %s`, 1)
}

// TestPluginDevControl hangs a tool under `cwx plugin dev`: SIGINT cancels the call while the
// session lives on, a save during the hang reloads (the old generation's call cancelled),
// --timeout cancels, a config.toml change is applied, /reload checks, and a Ctrl-C with no
// call running ends the session. The abort listener's log line is attributed and kept.
func TestPluginDevControl(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			dir := filepath.Join(t.TempDir(), "my-greeter")
			if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
				t.Fatalf("plugin new: %d %s", r.code, r.stderr)
			}
			src := filepath.Join(dir, "src", "index.ts")
			edit := func(f func(string) string) {
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(src, []byte(f(string(b))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			edit(hangingGreeter)
			ws := t.TempDir()
			p := startDev(t, bin, home, dir, "--timeout", "3s", "--workspace", ws)
			p.expect(devActive)
			hang := func() {
				p.send(`my_greeter_greet {"name":"hang"}`)
				p.expect(regexp.MustCompile(`^\[my-greeter\] info: hanging in ` + regexp.QuoteMeta(ws) + `$`))
			}

			hang()
			p.send(`my_greeter_greet {"name":"queued"}`)
			p.expect(regexp.MustCompile(`^busy: my_greeter_greet is still running; Ctrl-C cancels it`))
			if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			p.expectAll(
				regexp.MustCompile(`^\^C: cancelling my_greeter_greet \(Ctrl-C again within 1s ends the session\)$`),
				regexp.MustCompile(`^error: my_greeter_greet \(plugin my-greeter\): cancelled by Ctrl-C$`),
				regexp.MustCompile(`^\[my-greeter\] info: abort seen for `),
			)
			p.send(`my_greeter_greet {"name":"Ada"}`)
			p.expect(regexp.MustCompile(`^\{"text":"Hello, Ada!"\}$`))

			// stack traces and error locations name the author's file, not the staged copy
			p.send(`my_greeter_greet {"name":"throw"}`)
			at := regexp.QuoteMeta(filepath.Join(dir, "src", "index.ts")) + `:\d+:\d+`
			traced := p.expect(regexp.MustCompile(`^\[my-greeter\] error: Error: traced .*` + at))[0]
			if strings.Contains(traced, filepath.Join(home, "plugins")) {
				t.Errorf("the stack trace names the staged copy: %s", traced)
			}
			p.expect(regexp.MustCompile(`^error: .*Error: thrown \(at ` + at + `\)`))

			hang()
			edit(func(s string) string { return strings.Replace(s, "'Hello'", "'Howdy'", 1) })
			p.expectAll(
				regexp.MustCompile(`^error: my_greeter_greet \(plugin my-greeter\): cancelled: the plugin was re-staged, its generation replaced$`),
				devActive,
			)
			p.send(`my_greeter_greet {"name":"Ada"}`)
			p.expect(regexp.MustCompile(`^\{"text":"Howdy, Ada!"\}$`))

			hang()
			p.expect(regexp.MustCompile(`^error: my_greeter_greet \(plugin my-greeter\): cancelled: no answer within 3s \(--timeout\)$`))

			conf, err := os.ReadFile(filepath.Join(home, "config.toml"))
			if err != nil {
				t.Fatal(err)
			}
			conf = append(conf, "\n[plugins.\"my-greeter\".config]\ngreeting = \"Ahoy\"\n"...)
			if err := os.WriteFile(filepath.Join(home, "config.toml"), conf, 0o600); err != nil {
				t.Fatal(err)
			}
			p.expect(regexp.MustCompile(`^my-greeter: config.toml changed; re-reading it$`))
			p.expect(devActive)
			p.send("/my-greeter Bob")
			p.expect(regexp.MustCompile(`^Ahoy, Bob!$`))
			p.send("/reload")
			p.expect(regexp.MustCompile(`^my-greeter: generation \d+ unchanged, checked in \d+ ms: my_greeter_greet, /my-greeter$`))

			if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			p.expect(regexp.MustCompile(`^dev session ended: my-greeter has no dev receipt any more$`))
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("cwx plugin dev: %v", err)
			}
			if logs := e2eMust(t, bin, home, "logs", "my-greeter").stdout; !strings.Contains(logs, "info  [my-greeter] abort seen for ") {
				t.Fatalf("cwx logs my-greeter lacks the abort listener's line:\n%s", logs)
			}
		})
	}
}

// TestPluginDevInspect runs `cwx plugin dev --inspect`: the plugin gets a host of its own,
// unsandboxed and said so; on Node a client connects to the inspector port and reads the
// plugin's source through the inspector protocol; on Bun the session says it has no
// inspector. Calls keep working either way.
func TestPluginDevInspect(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	client, err := filepath.Abs("testdata/inspector-source.mjs")
	if err != nil {
		t.Fatal(err)
	}
	node := testenv.Node(t)
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "")
			dir := filepath.Join(t.TempDir(), "my-greeter")
			if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
				t.Fatalf("plugin new: %d %s", r.code, r.stderr)
			}
			p := startDev(t, bin, home, dir, "--inspect")
			port := p.expect(regexp.MustCompile(`^my-greeter: inspector on 127\.0\.0\.1:(\d+) for its own host, unsandboxed for this session; attach Chrome DevTools`))[1]
			note := regexp.QuoteMeta(" [host plugin:my-greeter pid ") + `(\d+)` + regexp.QuoteMeta(", unsandboxed: inspector on 127.0.0.1:"+port+"]")
			if rt.Name == "bun" {
				note = regexp.QuoteMeta(" [host plugin:my-greeter pid ") + `(\d+)` + regexp.QuoteMeta(", unsandboxed; no inspector: Bun]")
			}
			active := regexp.MustCompile(`^my-greeter: generation 1 active in \d+ ms: my_greeter_greet, /my-greeter` + note + `$`)
			if rt.Name == "bun" {
				p.expectAll(active, regexp.MustCompile(`^my-greeter: Bun runs it without an inspector`))
			} else {
				url := p.expectAll(active, regexp.MustCompile(`^my-greeter: inspector (ws://127\.0\.0\.1:`+port+`/\S+)$`))[1][1]
				out, err := exec.Command(node.Path, client, url, "/src/index.ts").Output()
				if err != nil {
					t.Fatalf("inspector client: %v", err)
				}
				var got struct{ URL, Source string }
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("inspector client printed %q: %v", out, err)
				}
				// the author's file, not the staged copy: the name every generation keeps
				author := "file://" + filepath.Join(dir, "src", "index.ts")
				if !strings.Contains(got.Source, "ctx.tools.register") || got.URL != author {
					t.Fatalf("the inspector's source of %s (want %s):\n%s", got.URL, author, got.Source)
				}
				src := filepath.Join(dir, "src", "index.ts")
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(src, []byte(strings.Replace(string(b), "'Hello'", "'Howdy'", 1)), 0o644); err != nil {
					t.Fatal(err)
				}
				p.expect(regexp.MustCompile(`^my-greeter: generation 2 active in \d+ ms: my_greeter_greet, /my-greeter` + note + `$`))
				// the generation may run in a new host (a dirty teardown restarts it): ask the
				// port for the target it serves now
				out, err = exec.Command(node.Path, client, inspectorTarget(t, port), "/src/index.ts").Output()
				if err != nil {
					t.Fatalf("inspector client after the reload: %v", err)
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("inspector client printed %q: %v", out, err)
				}
				if got.URL != author || !strings.Contains(got.Source, "'Howdy'") {
					t.Fatalf("after the reload the inspector has %s (want %s, the same name, so breakpoints set by it hold):\n%s", got.URL, author, got.Source)
				}
			}
			p.send("/my-greeter Bob")
			p.expect(regexp.MustCompile(`^(Hello|Howdy), Bob!$`))
			_ = p.stdin.Close()
			p.expect(regexp.MustCompile(`^dev session ended: my-greeter has no dev receipt any more$`))
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("cwx plugin dev: %v", err)
			}
			if logs := e2eMust(t, bin, home, "logs", "my-greeter").stdout; strings.Contains(logs, "ExperimentalWarning") {
				t.Errorf("the host's own stripping warning is logged as the plugin's:\n%s", logs)
			}
		})
	}
}

// inspectorTarget is the WebSocket URL of the one target the inspector on port serves now.
func inspectorTarget(t *testing.T, port string) string {
	t.Helper()
	var last error
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err != nil {
			last = err
			continue
		}
		var targets []struct {
			URL string `json:"webSocketDebuggerUrl"`
		}
		err = json.NewDecoder(resp.Body).Decode(&targets)
		_ = resp.Body.Close()
		if err == nil && len(targets) == 1 && targets[0].URL != "" {
			return targets[0].URL
		}
		last = fmt.Errorf("targets %+v, %v", targets, err)
	}
	t.Fatalf("the inspector on port %s serves no target: %v", port, last)
	return ""
}

// TestPluginDevSeenByOtherProcesses calls the dev plugin from a second `cwx tool call` and from
// a long-lived `cwx serve --mcp` of the same CWX_HOME, then SIGKILLs the session: the next
// `tool call` finds no such tool and serve drops it from its list (its watcher sees the dev
// session's lock released, though no state changed).
func TestPluginDevSeenByOtherProcesses(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	rt := testenv.Node(t)
	home := e2eHome(t, rt, "")
	dir := filepath.Join(t.TempDir(), "my-greeter")
	if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
		t.Fatalf("plugin new: %d %s", r.code, r.stderr)
	}
	p := startDev(t, bin, home, dir)
	p.expect(devActive)

	if out := e2eMust(t, bin, home, "tool", "list").stdout; !regexp.MustCompile(`(?m)^my_greeter_greet +extension:my-greeter +(cached|live), dev `).MatchString(out) {
		t.Fatalf("tool list in another process does not mark the dev plugin:\n%s", out)
	}
	if out := e2eMust(t, bin, home, "tool", "list", "--json").stdout; !strings.Contains(out, `"dev": true`) {
		t.Fatalf("tool list --json does not mark the dev plugin:\n%s", out)
	}
	if out := e2eMust(t, bin, home, "command", "list").stdout; !regexp.MustCompile(`(?m)^/my-greeter .*my-greeter +(cached|live), dev `).MatchString(out) {
		t.Fatalf("command list in another process does not mark the dev plugin:\n%s", out)
	}
	if out := e2eMust(t, bin, home, "command", "list", "--json").stdout; !strings.Contains(out, `"dev": true`) {
		t.Fatalf("command list --json does not mark the dev plugin:\n%s", out)
	}
	// a dev plugin's tool is always asked: --approve auto does not approve it, and with no
	// terminal to ask on the call is refused, naming the dev session
	r := e2eCWX(t, bin, home, "", "tool", "call", "my_greeter_greet", "--input", `{"name":"Ada"}`, "--approve", "auto")
	if r.code != ExitDenied || r.stdout != "" || !strings.Contains(r.stderr, "extension tool `my_greeter_greet` from plugin `my-greeter` comes from a `cwx plugin dev` session and must be asked of a person") {
		t.Fatalf("tool call from another process: exit %d (want %d)\n%s%s", r.code, ExitDenied, r.stdout, r.stderr)
	}
	// serve --mcp with --approve-extensions lists it as dev and asks every call by
	// elicitation, its form offering no session grant: the same call is asked again
	srv := startServe(t, bin, home, true, "--approve", "auto", "--approve-extensions")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	listed, err := srv.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tools := extensionTools(listed.Tools); len(tools) != 1 || !strings.HasPrefix(tools[0].Description, "[extension:my-greeter, dev] ") {
		t.Fatalf("serve --mcp does not mark the dev tool: %+v", tools)
	}
	srv.answer.Store(answerOnceForTest)
	for i := range 2 {
		res, err := srv.call(t, ctx, "my_greeter_greet", map[string]any{"name": "Bob"})
		if err != nil || res.IsError || !strings.Contains(mcpText(res), "Hello, Bob!") {
			t.Fatalf("serve --mcp call %d: %v %s\n%s", i, err, mcpText(orEmpty(res)), srv.stderr)
		}
		asked := srv.asked.Load().(string)
		if srv.askedN.Load() != int32(i+1) || !strings.Contains(asked, "(dev: runs from a `cwx plugin dev` session, reviewed by no one; ") ||
			!strings.Contains(asked, "(this call is always asked)") || strings.Contains(asked, "allow_session") || strings.Contains(asked, "allow_tool") {
			t.Fatalf("serve --mcp call %d: %d cards, the last:\n%s", i, srv.askedN.Load(), asked)
		}
	}

	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	r = e2eCWX(t, bin, home, "", "tool", "call", "my_greeter_greet", "--input", `{"name":"Ada"}`, "--approve", "auto")
	if r.code == ExitOK || !strings.Contains(r.stderr, `no live tool "my_greeter_greet"`) {
		t.Fatalf("tool call after the session was killed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	srv.waitTools(t, 0)
	res, err := srv.call(t, ctx, "my_greeter_greet", map[string]any{"name": "Bob"})
	if err == nil && !res.IsError {
		t.Fatalf("serve --mcp still calls the dev plugin after its session was killed: %s", mcpText(res))
	}
}

// TestPluginDevInspectSuspendsDeadlines pauses the inspected host for longer than the
// activation deadline and the heartbeat's unresponsive bound while a save re-activates the
// plugin: the host is not killed (same pid, the inspector still connected) and the new
// generation activates once the debugger resumes.
func TestPluginDevInspectSuspendsDeadlines(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	rt := testenv.Node(t)
	pauser, err := filepath.Abs("testdata/inspector-pause.mjs")
	if err != nil {
		t.Fatal(err)
	}
	home := e2eHome(t, rt, "")
	dir := filepath.Join(t.TempDir(), "my-greeter")
	if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
		t.Fatalf("plugin new: %d %s", r.code, r.stderr)
	}
	p := startDev(t, bin, home, dir, "--inspect")
	line := func(gen string) *regexp.Regexp {
		return regexp.MustCompile(`^my-greeter: generation ` + gen + ` active in \d+ ms: my_greeter_greet, /my-greeter \[host plugin:my-greeter pid (\d+), unsandboxed`)
	}
	got := p.expectAll(line("1"), regexp.MustCompile(`^my-greeter: inspector (ws://\S+)$`))
	pid, url := got[0][1], got[1][1]

	pause := exec.Command(rt.Path, pauser, url, "12000") // > core.ActivateDeadline, > supervisor.DefaultHangKill
	pause.Stderr = os.Stderr
	out, err := pause.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := pause.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pause.Process.Kill(); _ = pause.Wait() })
	said := bufio.NewScanner(out)
	if !said.Scan() || said.Text() != "requested" {
		t.Fatalf("the inspector client said %q, not requested", said.Text())
	}
	src := filepath.Join(dir, "src", "index.ts")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(strings.Replace(string(b), "'Hello'", "'Howdy'", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if !said.Scan() || said.Text() != "paused" { // the activation's frame runs JavaScript, and stops there
		t.Fatalf("the inspector client said %q, not paused", said.Text())
	}
	if !said.Scan() || said.Text() != "resumed" {
		t.Fatalf("the inspector client said %q, not resumed", said.Text())
	}
	if err := pause.Wait(); err != nil {
		t.Fatalf("the inspector client: %v", err)
	}
	if again := p.expect(line("2"))[1]; again != pid {
		t.Fatalf("the host's pid went from %s to %s: it was killed while paused", pid, again)
	}
	p.send("/my-greeter Bob")
	p.expect(regexp.MustCompile(`^Howdy, Bob!$`))
}

// TestPluginDevInspectBrk starts the dev plugin's host under --inspect-brk: it waits at its
// first line, the plugin is not active until a debugger lets it run, and then it is.
func TestPluginDevInspectBrk(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	rt := testenv.Node(t)
	pauser, err := filepath.Abs("testdata/inspector-pause.mjs")
	if err != nil {
		t.Fatal(err)
	}
	home := e2eHome(t, rt, "")
	dir := filepath.Join(t.TempDir(), "my-greeter")
	if r := runPluginCLI(t, "plugin", "new", "my-greeter", "--dir", dir); r.code != ExitOK {
		t.Fatalf("plugin new: %d %s", r.code, r.stderr)
	}
	p := startDev(t, bin, home, dir, "--inspect-brk")
	p.expect(regexp.MustCompile(`^my-greeter: --inspect-brk: the host waits at its first line until a debugger lets it run$`))
	url := p.expect(regexp.MustCompile(`^my-greeter: inspector (ws://\S+)$`))[1]
	select {
	case line := <-p.lines:
		t.Fatalf("before the debugger let the host run: %s", line)
	case <-time.After(2 * time.Second):
	}
	out, err := exec.Command(rt.Path, pauser, url, "0", "run").Output()
	if err != nil || !strings.Contains(string(out), "resumed") {
		t.Fatalf("the inspector client: %v\n%s", err, out)
	}
	p.expect(regexp.MustCompile(`^my-greeter: generation 1 active in \d+ ms: my_greeter_greet, /my-greeter \[host plugin:my-greeter pid \d+, unsandboxed`))
	p.send("/my-greeter Bob")
	p.expect(regexp.MustCompile(`^Hello, Bob!$`))
}
