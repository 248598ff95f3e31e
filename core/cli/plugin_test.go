package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// reexecEnv makes the test binary act as the cwx binary (see init), so that tests can run
// real cwx processes without building one.
const reexecEnv = "CWX_CLI_TEST_AS_CWX"

func init() {
	if os.Getenv(reexecEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

var testNow = time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)

// pluginHome points CWX_HOME at a fresh folder and fixes the clock.
func pluginHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("CWX_HOME", home)
	old := pluginEnv
	t.Cleanup(func() { pluginEnv = old })
	pluginEnv.now = func() time.Time { return testNow }
	useFake(t, newFakeCore()) // `plugin show` of an enabled plugin opens the core: a fake one here
	return home
}

type cliResult struct {
	stdout, stderr string
	code           int
}

func runPluginCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return cliResult{out.String(), errb.String(), code}
}

func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	r := runPluginCLI(t, args...)
	if r.code != 0 {
		t.Fatalf("cwx %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// normalize replaces machine-dependent paths in output with stable names.
func normalize(s string, repl ...string) string {
	return strings.NewReplacer(append(repl, pinnedDigests()...)...).Replace(s)
}

// basicFixture copies testdata/manifests/valid-plugin-basic to a folder named "hello".
func basicFixture(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "hello")
	plugintest.WriteTree(t, src, map[string]string{
		"plugin.json": `{"name":"hello","version":"1.0.0","description":"Says hello","native":"index.mjs"}` + "\n",
		"index.mjs":   "export const inject = ['tools'];\nexport function apply(ctx) {}\n",
	})
	return src
}

func reviewToken(t *testing.T, id string) string {
	t.Helper()
	var rv plugins.Review
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "review", id, "--json")), &rv); err != nil {
		t.Fatal(err)
	}
	return rv.Token
}

func TestPluginLifecycleGoldens(t *testing.T) {
	home := pluginHome(t)
	src := basicFixture(t)
	norm := func(s string) []byte { return []byte(normalize(s, home, "$CWX_HOME", src, "$SRC")) }

	checkGolden(t, "plugin-install.golden", norm(mustCLI(t, "plugin", "install", src)))
	checkGolden(t, "plugin-install-again-json.golden", norm(mustCLI(t, "plugin", "install", src, "--json")))
	checkGolden(t, "plugin-review.golden", norm(mustCLI(t, "plugin", "review", "hello")))
	checkGolden(t, "plugin-review-json.golden", norm(mustCLI(t, "plugin", "review", "hello", "--json")))
	checkGolden(t, "plugin-list-untrusted.golden", norm(mustCLI(t, "plugin", "list")))

	r := runPluginCLI(t, "plugin", "trust", "hello")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "trust needs --token") {
		t.Fatalf("trust without a token: %+v", r)
	}
	r = runPluginCLI(t, "plugin", "trust", "hello", "--token", "rv1-deadbeef")
	if r.code != ExitDenied {
		t.Fatalf("trust with a wrong token: %+v", r)
	}
	checkGolden(t, "plugin-trust-wrong-token.golden", norm(r.stderr))

	checkGolden(t, "plugin-trust.golden", norm(mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))))
	checkGolden(t, "plugin-enable.golden", norm(mustCLI(t, "plugin", "enable", "hello")))

	cfg := "[plugins.hello.config]\ngreeting = \"secret value\"\nretries = 3\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _, err := openPlugins()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 25; i++ {
		d := plugins.Diagnostic{Time: testNow.Add(time.Duration(i) * time.Second), Kind: "activation_failed", Message: fmt.Sprintf("attempt %d failed\x1b[31m", i)}
		if err := s.AppendDiagnostic("hello", d); err != nil {
			t.Fatal(err)
		}
	}
	show := mustCLI(t, "plugin", "show", "hello")
	if strings.Contains(show, "secret value") || strings.Contains(show, "\x1b") {
		t.Fatal("show printed a config value or a terminal escape")
	}
	checkGolden(t, "plugin-show.golden", norm(show))
	showJSON := mustCLI(t, "plugin", "show", "hello", "--json")
	if strings.Contains(showJSON, "secret value") {
		t.Fatal("show --json printed a config value")
	}
	checkGolden(t, "plugin-show-json.golden", norm(showJSON))
	checkGolden(t, "plugin-list-json.golden", norm(mustCLI(t, "plugin", "list", "--json")))

	checkGolden(t, "plugin-disable.golden", norm(mustCLI(t, "plugin", "disable", "hello")))
	checkGolden(t, "plugin-untrust.golden", norm(mustCLI(t, "plugin", "untrust", "hello")))
	if _, err := s.Layout().EnsureDataDir("hello"); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "plugin-remove.golden", norm(mustCLI(t, "plugin", "remove", "hello")))
	checkGolden(t, "plugin-list-empty.golden", norm(mustCLI(t, "plugin", "list")))
}

func TestPluginExitCodes(t *testing.T) {
	home := pluginHome(t)
	src := basicFixture(t)
	mustCLI(t, "plugin", "install", src)
	noDeps := filepath.Join(t.TempDir(), "deps")
	plugintest.WriteTree(t, noDeps, map[string]string{
		"package.json": `{"name":"needs-zod","version":"1.0.0","main":"index.js","dependencies":{"zod":"^4","@deepseek-ai/schemastery":"^3"}}`,
		"index.js":     "export function apply() {}\n",
	})
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown id", []string{"plugin", "enable", "ghost"}, ExitUnavailable, `plugin is not installed: "ghost"`},
		{"missing path", []string{"plugin", "install", filepath.Join(home, "nope")}, ExitUsage, "no such file"},
		{"missing deps", []string{"plugin", "install", noDeps}, ExitInvalid, "provided by cwx: zod ("},
		{"bad manifest", []string{"plugin", "install", t.TempDir()}, ExitInvalid, "no plugin.json or package.json"},
		{"too many args", []string{"plugin", "show", "a", "b"}, ExitUsage, "usage: cwx plugin show ID"},
		{"list with args", []string{"plugin", "list", "x"}, ExitUsage, "usage"},
		{"bad flag", []string{"plugin", "list", "--nope"}, ExitUsage, "unknown flag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runPluginCLI(t, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d (want %d), stderr %q lacks %q", r.code, tc.code, r.stderr, tc.want)
			}
		})
	}
	// A corrupt state file is reported with its path, exits 3 (invalid input) and is left alone.
	state := filepath.Join(home, "state.json")
	if err := os.WriteFile(state, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runPluginCLI(t, "plugin", "list")
	if r.code != ExitInvalid || !strings.Contains(r.stderr, state) || !strings.Contains(r.stderr, "corrupt") {
		t.Fatalf("corrupt state: %+v", r)
	}
	if b, _ := os.ReadFile(state); string(b) != "{not json" {
		t.Fatal("the corrupt state file was rewritten")
	}
	// A broken config.toml stops plugin commands with exit 3 and names the key.
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[extension_host]\nrumtime = \"node\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runPluginCLI(t, "plugin", "show", "hello")
	if r.code != ExitInvalid || !strings.Contains(r.stderr, "extension_host.rumtime") {
		t.Fatalf("bad config: %+v", r)
	}
}

func TestPluginContentChangedAndPolicy(t *testing.T) {
	pluginHome(t)
	src := basicFixture(t)
	mustCLI(t, "plugin", "install", src)
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	mustCLI(t, "plugin", "enable", "hello")

	pluginEnv.policy = plugins.PolicyVersion + "-bumped"
	out := mustCLI(t, "plugin", "show", "hello")
	if !strings.Contains(out, "capabilities changed, review again") {
		t.Fatalf("after a policy bump:\n%s", out)
	}
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	if out := mustCLI(t, "plugin", "list"); !strings.Contains(out, "enabled") || strings.Contains(out, "review again") {
		t.Fatalf("after re-review:\n%s", out)
	}

	// One changed byte in the staged copy: review refuses, saying why.
	var show PluginShow
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "show", "hello", "--json")), &show); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(show.StageDir, "index.mjs")
	if err := os.Chmod(show.StageDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(entry, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, []byte("export const inject = ['tools'];\nexport function apply(ctx) {}\n "), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPluginCLI(t, "plugin", "review", "hello")
	if r.code != ExitInvalid || !strings.Contains(r.stderr, "content changed, review again") {
		t.Fatalf("review of changed bytes: %+v", r)
	}
}

func TestOneLineStripsEscapes(t *testing.T) {
	tests := map[string]string{
		"plain":                         "plain",
		"red \x1b[31mtext\x1b[0m":       "red text",
		"title \x1b]0;pwned\x07 after":  "title  after",
		"st \x1b]8;;http://x\x1b\\ end": "st  end",
		"multi\nline\ttab":              "multi line tab",
		"c1 \u009b31m csi":              "c1  csi",
	}
	for in, want := range tests {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestConcurrentProcesses runs 20 real cwx processes enabling and disabling one plugin at
// once; the state file must stay valid and every process must succeed.
func TestConcurrentProcesses(t *testing.T) {
	home := pluginHome(t)
	mustCLI(t, "plugin", "install", basicFixture(t))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), reexecEnv+"=1", "CWX_HOME="+home)
	var wg sync.WaitGroup
	errs := make(chan string, 20)
	for i := 0; i < 20; i++ {
		verb := "enable"
		if i%2 == 1 {
			verb = "disable"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "plugin", verb, "hello")
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Sprintf("cwx plugin %s: %v\n%s", verb, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	data, err := os.ReadFile(filepath.Join(home, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st plugins.State
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("state file is not valid JSON after concurrent writers: %v\n%s", err, data)
	}
	if st.Plugins["hello"] == nil || st.Generation < 2 {
		t.Fatalf("state %+v", st)
	}
	if left, _ := filepath.Glob(filepath.Join(home, ".state.json.tmp-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	mustCLI(t, "plugin", "list")

	// A disable in another process reaches a watcher in this one at its next poll.
	s, _, err := openPlugins()
	if err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "plugin", "enable", "hello")
	w, err := plugins.NewWatcher(s)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "plugin", "disable", "hello")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	select {
	case <-w.Changed():
		t.Fatal("the watcher changed without polling")
	default:
	}
	w.Poll()
	select {
	case <-w.Changed():
	default:
		t.Fatal("the watcher missed a disable made by another process")
	}
}

// TestPluginAcceptanceFixtures installs, reviews, trusts and enables every fixture plugin
// in testdata/plugins.
func TestPluginAcceptanceFixtures(t *testing.T) {
	pluginHome(t)
	dirs, _ := filepath.Glob("../../testdata/plugins/*")
	if len(dirs) == 0 {
		t.Skip("testdata/plugins has no fixtures yet")
	}
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		var res PluginInstallResult
		if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "install", d, "--json")), &res); err != nil {
			t.Fatal(err)
		}
		mustCLI(t, "plugin", "review", res.ID)
		mustCLI(t, "plugin", "trust", res.ID, "--token", reviewToken(t, res.ID))
		mustCLI(t, "plugin", "enable", res.ID)
		if out := mustCLI(t, "plugin", "show", res.ID); !strings.Contains(out, "status   enabled") {
			t.Fatalf("%s:\n%s", d, out)
		}
	}
	var list []PluginListItem
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, it := range list {
		if it.Status != "enabled" {
			t.Errorf("%s: %s", it.ID, it.Status)
		}
	}
}

// TestPluginAcceptanceNpm is the acceptance on the published DSH packages.
func TestPluginAcceptanceNpm(t *testing.T) {
	pluginHome(t)
	slx := plugintest.NpmTarball(t, plugintest.SessionLogExport)
	todo := plugintest.NpmTarball(t, plugintest.ToolTodo)
	id := "@deepseek-ai/dsh-session-log-export"
	mustCLI(t, "plugin", "install", slx)
	review := mustCLI(t, "plugin", "review", id)
	for _, want := range []string{
		"@deepseek-ai/cordis ^4.0.1: provided by cwx",
		"@deepseek-ai/dsh-commands ^0.1.0-rc.8: partly provided by cwx: only @deepseek-ai/dsh-commands/brand",
		"lib/index.js: host code (JavaScript)",
		"injects: commands",
		"Runs JavaScript on your computer with your user permissions.",
	} {
		if !strings.Contains(review, want) {
			t.Errorf("review lacks %q:\n%s", want, review)
		}
	}
	mustCLI(t, "plugin", "trust", id, "--token", reviewToken(t, id))
	mustCLI(t, "plugin", "enable", id)
	if out := mustCLI(t, "plugin", "show", id); !strings.Contains(out, "status   enabled") {
		t.Fatal(out)
	}
	r := runPluginCLI(t, "plugin", "install", todo)
	if r.code != ExitInvalid || !strings.Contains(r.stderr, "zod") {
		t.Fatalf("tool-todo: %+v", r)
	}
	if !strings.Contains(mustCLI(t, "plugin", "list"), id) {
		t.Fatal("list lost the installed plugin")
	}
}

// TestProvidedModulesFromHost checks the CLI takes the host's own provided-modules list.
func TestProvidedModulesFromHost(t *testing.T) {
	data, err := os.ReadFile("../../nodeshim/jshost/dist/provided-modules.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Provided []string `json:"provided"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	got, _, err := providedModules()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || fmt.Sprint(f.Provided) != fmt.Sprint(got) {
		t.Fatalf("host file lists %v, the CLI uses %v", f.Provided, got)
	}
}
