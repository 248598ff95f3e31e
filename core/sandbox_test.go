package core

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// needBwrap skips without bubblewrap, and fails under CI=true, where the repository's setup
// installs it (make tools).
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := runtime.ResolveBwrap("", os.Getenv("PATH"), ""); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bubblewrap is missing under CI: %v", err)
		}
		t.Skipf("bubblewrap is not installed: %v", err)
	}
}

// probe is one tool call's JSON answer.
type probe struct {
	OK     bool   `json:"ok"`
	Code   string `json:"code"`
	Text   string `json:"text"`
	Self   int    `json:"self"`
	Stderr string `json:"stderr"`
}

func callProbe(t *testing.T, m *Manager, tool string, in any) probe {
	t.Helper()
	b, _ := json.Marshal(in)
	res, err := m.CallTool(context.Background(), tool, b, CallOptions{})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, b, err)
	}
	var p probe
	if err := json.Unmarshal([]byte(res.Text()), &p); err != nil {
		t.Fatalf("%s answered %q: %v", tool, res.Text(), err)
	}
	return p
}

// sandboxEnv opens a Manager whose plugin tier runs under sandbox = "required" with the
// probe fixtures, deny_read covering one existing folder and one not there yet.
func sandboxEnv(t *testing.T, rt testenv.Runtime) (*env, *Manager, string) {
	e := newEnv(t, rt)
	data := filepath.Join(e.home, "extension-host", "data")
	for _, d := range []string{filepath.Join(data, "secrets"), filepath.Join(data, "vault")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "secrets", "key"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.writeConfig(fmt.Sprintf("sandbox = \"required\"\nmemory_limit_mib = 512\ndeny_read = [%q, %q]\n",
		filepath.Join(data, "secrets"), filepath.Join(data, "vault", "later")))
	e.install("secret-probe", "net-probe", "pid-probe")
	m := e.open(nil)
	reconcile(t, m)
	return e, m, data
}

// TestSandboxRequired checks the plugin tier's containment on Node and Bun (ARCHITECTURE.md,
// “Sandbox”): what it may read and write, and that network, unix sockets, mounts and other
// processes are out of reach.
func TestSandboxRequired(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e, m, data := sandboxEnv(t, rt)
		if st := m.SandboxStatus(); !st.Active {
			t.Fatalf("sandbox not active: %+v", st)
		}
		own := filepath.Join(plugins.Layout{Home: e.home}.DataDir("fixture-secret-probe"), "note")
		if p := callProbe(t, m, "probe_write", map[string]string{"path": own, "text": "hi"}); !p.OK {
			t.Fatalf("write in the data folder: %+v", p)
		}
		if p := callProbe(t, m, "probe_read", map[string]string{"path": own}); !p.OK || p.Text != "hi" {
			t.Fatalf("read in the data folder: %+v", p)
		}
		later := filepath.Join(data, "vault", "later")
		if err := os.WriteFile(later, []byte("created after the host started"), 0o600); err != nil {
			t.Fatal(err)
		}
		self, _ := os.Executable()
		denied := []string{
			filepath.Join(data, "secrets", "key"), later, "/etc/shadow", "/root/.bashrc",
			filepath.Join(e.home, "config.toml"), filepath.Join(e.home, "state.json"), self,
			homeSecret(t),
		}
		if home, err := os.UserHomeDir(); err == nil {
			for _, c := range []string{".ssh/id_ed25519", ".aws/credentials", ".gnupg", ".config/gcloud", ".kube/config",
				".docker/config.json", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".codex", ".claude", ".dsh", ".codewhale"} {
				denied = append(denied, filepath.Join(home, c))
			}
		}
		for _, path := range denied {
			if p := callProbe(t, m, "probe_read", map[string]string{"path": path}); p.OK {
				t.Errorf("read %s: succeeded", path)
			}
		}
		outside := filepath.Join(os.TempDir(), fmt.Sprintf("cwx-sandbox-%d", time.Now().UnixNano()))
		for _, path := range []string{filepath.Join(e.home, "config.toml"), filepath.Join(e.home, "plugins", "x"), "/etc/cwx-x", "/usr/cwx-x", outside} {
			_ = callProbe(t, m, "probe_write", map[string]string{"path": path})
			if _, err := os.Stat(path); err == nil && path != filepath.Join(e.home, "config.toml") {
				t.Errorf("write %s reached the disk", path)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(e.home, "config.toml")); !strings.Contains(string(b), "sandbox") {
			t.Error("config.toml was overwritten")
		}
		for _, argv := range [][]string{{"umount", "/etc/shadow"}, {"mount", "-t", "tmpfs", "none", "/usr"}} {
			if p := callProbe(t, m, "probe_exec", map[string]any{"argv": argv}); p.OK {
				t.Errorf("%v succeeded", argv)
			}
		}
		if p := callProbe(t, m, "probe_read", map[string]string{"path": "/etc/shadow"}); p.OK {
			t.Error("/etc/shadow readable after umount")
		}
		testNetwork(t, m)
		testPIDs(t, m)
	})
}

func testNetwork(t *testing.T, m *Manager) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if p := callProbe(t, m, "net_probe", map[string]int{"port": ln.Addr().(*net.TCPAddr).Port}); p.OK {
		t.Error("loopback TCP connect succeeded")
	}
	dirs := []string{os.TempDir(), runtimeDir(t)}
	for _, dir := range dirs {
		path := filepath.Join(dir, fmt.Sprintf("cwx-s-%d.sock", time.Now().UnixNano()))
		ul, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		if p := callProbe(t, m, "net_probe", map[string]string{"path": path}); p.OK {
			t.Errorf("unix socket %s reached", path)
		}
		ul.Close()
	}
}

// homeSecret is a file the test writes in the user's home folder (removed afterwards), so the
// check that $HOME is not mounted covers a file that exists.
func homeSecret(t *testing.T) string {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(home, ".cwx-sandbox-secret-*")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("secret")
	f.Close()
	t.Cleanup(func() { os.Remove(f.Name()) })
	return f.Name()
}

// runtimeDir is $XDG_RUNTIME_DIR, else /run/user/<uid>, else a fresh folder under /run (the
// test runs as root in CI), so the unix-socket check always covers a runtime folder.
func runtimeDir(t *testing.T) string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		return x
	}
	if d := fmt.Sprintf("/run/user/%d", os.Getuid()); isDir(d) {
		return d
	}
	d, err := os.MkdirTemp("/run", "cwx-xdg-")
	if err != nil {
		t.Fatalf("no XDG_RUNTIME_DIR, no /run/user/%d and /run is not writable: %v", os.Getuid(), err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func testPIDs(t *testing.T, m *Manager) {
	p := callProbe(t, m, "pid_probe", map[string]int{"pid": os.Getpid()})
	if p.OK {
		t.Errorf("the core's pid %d is visible from the sandbox", os.Getpid())
	}
	rtPID := m.Host("plugin").RuntimePID
	if rtPID == p.Self {
		t.Errorf("runtime pid %d is the namespace's, not the real one", rtPID)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", rtPID))
	if err != nil || !strings.Contains(string(cmdline), "--tier=plugin") || strings.Contains(string(cmdline), "bwrap") {
		t.Errorf("host status pid %d is not the runtime: %q, %v", rtPID, cmdline, err)
	}
}

// TestSandboxMemoryLimit: the data limit binds the real runtime inside the sandbox (its
// /proc limits say so, and an allocation past it fails), and the tier keeps serving. On Bun
// the allocation throws in the plugin and the host lives on; Node, run with
// --zero-fill-buffers, ends the process on an off-heap allocation it cannot zero-fill, which
// the core names as the memory limit before the next call gets a new host.
func TestSandboxMemoryLimit(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig("sandbox = \"required\"\nmemory_limit_mib = 512\n")
		e.install("memory-hog")
		m := e.open(nil)
		reconcile(t, m)
		limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", m.Host("plugin").RuntimePID))
		if err != nil || !strings.Contains(string(limits), "Max data size             536870912") {
			t.Fatalf("the runtime's limits: %v\n%s", err, limits)
		}
		_, err = m.CallTool(context.Background(), "memory_hog", input(`{"mib":1024}`), CallOptions{})
		want := memoryHint
		if rt.Name == "node" {
			want = regexp.MustCompile(`exceeded its memory limit of 512 MiB \(RLIMIT_DATA 512 MiB, \[extension_host\] memory_limit_mib\)`)
		}
		if err == nil || !want.MatchString(err.Error()) {
			t.Fatalf("1 GiB under a 512 MiB limit: %v, want %s", err, want)
		}
		var res ToolResult
		eventually(t, 30*time.Second, "a call served after the failed allocation", func() bool {
			res, err = m.CallTool(context.Background(), "memory_hog", input(`{"mib":0}`), CallOptions{})
			return err == nil
		})
		if !strings.Contains(res.Text(), `"held_mib":0`) {
			t.Fatalf("after the failed allocation: %v", res)
		}
	})
}

// TestSandboxUnavailable: under "prefer" a missing bubblewrap leaves the host running and
// says so; under "required" the plugin tier refuses to start with the reason.
func TestSandboxUnavailable(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		for _, mode := range []string{"prefer", "required"} {
			t.Run(mode, func(t *testing.T) {
				e := newEnv(t, rt)
				e.writeConfig(fmt.Sprintf("sandbox = %q\nbwrap = \"/nonexistent/bwrap\"\n", mode))
				e.install("pid-probe")
				m := e.open(nil)
				err := m.Reconcile(context.Background())
				st := m.Status()[0]
				if mode == "prefer" {
					if err != nil {
						t.Fatalf("reconcile: %v", err)
					}
					if p := callProbe(t, m, "pid_probe", map[string]int{"pid": os.Getpid()}); !p.OK {
						t.Errorf("unsandboxed host cannot see the core: %+v", p)
					}
					if st.Sandbox != runtime.Unsandboxed {
						t.Errorf("status says %q", st.Sandbox)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), "plugin tier requires a verified OS sandbox: ") || !strings.Contains(err.Error(), "/nonexistent/bwrap") {
					t.Fatalf("reconcile = %v, want the refusal", err)
				}
			})
		}
	})
}

var memoryHint = regexp.MustCompile(`(?i)out of memory|allocation failed`)
