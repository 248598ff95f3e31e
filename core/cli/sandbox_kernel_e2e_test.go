package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// unprivilegedUID stands for an ordinary user running cwx (no passwd entry is needed).
const unprivilegedUID = 61234

// kernelRunner runs the real cwx binary as one identity, in a workspace of its own.
type kernelRunner struct {
	bin, home, ws string
	cred          *syscall.Credential // nil: this process's identity
}

func (r kernelRunner) run(t *testing.T, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(r.bin, args...)
	cmd.Env = append(os.Environ(), "CWX_HOME="+r.home, "HOME="+r.home)
	cmd.Dir = r.ws
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{out.String(), errb.String(), code}
}

func (r kernelRunner) must(t *testing.T, args ...string) string {
	t.Helper()
	res := r.run(t, args...)
	if res.code != 0 {
		t.Fatalf("cwx %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	}
	return res.stdout
}

// trust installs, reviews and trusts the plugin at src.
func (r kernelRunner) trust(t *testing.T, src string) {
	t.Helper()
	var res PluginInstallResult
	if err := json.Unmarshal([]byte(r.must(t, "plugin", "install", src, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	var rv struct{ Token string }
	if err := json.Unmarshal([]byte(r.must(t, "plugin", "review", res.ID, "--json")), &rv); err != nil || rv.Token == "" {
		t.Fatalf("review %s: %v", res.ID, err)
	}
	r.must(t, "plugin", "trust", res.ID, "--token", rv.Token)
	r.must(t, "plugin", "enable", res.ID)
}

// call runs a tool one-shot and decodes its JSON answer.
func (r kernelRunner) call(t *testing.T, tool string, in any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(in)
	out := r.must(t, "tool", "call", tool, "--input", string(b), "--approve", "auto")
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s answered %q: %v", tool, out, err)
	}
	return v
}

// reachable reports whether every folder above path lets others through, so a process of
// another uid can open path.
func reachable(path string) bool {
	for d := filepath.Dir(path); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
	}
	return true
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files of the folder src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(dst, rel), 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSandboxKernelEndToEnd runs the real binary under sandbox = "required" on Node and
// Bun, as root (the runtime drops to the sandbox uid) and as an unprivileged user (bubblewrap
// runs as that user): a sysctl write is refused, the runtime's uid is the expected non-zero
// one, a unix socket in the read-only workspace refuses connect(), and `cwx doctor` shows the
// kernel surface.
func TestSandboxKernelEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if testenv.InCI() {
			t.Fatal("bubblewrap is missing under CI")
		}
		t.Skip("bubblewrap is not installed")
	}
	bin := testenv.BuildCWX(t, "")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			type who struct {
				name string
				uid  int // the uid the runtime must run as
				cred *syscall.Credential
			}
			var whos []who
			if os.Geteuid() == 0 {
				whos = []who{
					{"as root", config.DefaultSandboxUID, nil},
					{"as an unprivileged user", unprivilegedUID, &syscall.Credential{Uid: unprivilegedUID, Gid: unprivilegedUID}},
				}
			} else {
				whos = []who{{"as this user", os.Geteuid(), nil}}
			}
			for _, w := range whos {
				t.Run(w.name, func(t *testing.T) {
					dir, err := os.MkdirTemp("", "cwx-kernel-e2e-")
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { os.RemoveAll(dir) })
					if err := os.Chmod(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					r := kernelRunner{bin: bin, home: filepath.Join(dir, "home"), ws: filepath.Join(dir, "ws"), cred: w.cred}
					runtimePath := rt.Path
					if w.cred != nil {
						r.bin = filepath.Join(dir, "cwx")
						copyFile(t, bin, r.bin, 0o755)
						if !reachable(runtimePath) {
							runtimePath = filepath.Join(dir, rt.Name)
							copyFile(t, rt.Path, runtimePath, 0o755)
						}
					}
					var srcs []string
					for _, name := range []string{"secret-probe", "net-probe"} {
						src := filepath.Join(dir, "src", name)
						copyTree(t, filepath.Join(repo, "testdata", "plugins", name), src)
						srcs = append(srcs, src)
					}
					for _, d := range []string{r.home, r.ws} {
						if err := os.MkdirAll(d, 0o700); err != nil {
							t.Fatal(err)
						}
					}
					conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\nsandbox = \"required\"\nsandbox_workspace = \"read\"\n", rt.Name, rt.Name, runtimePath)
					if err := os.WriteFile(filepath.Join(r.home, "config.toml"), []byte(conf), 0o600); err != nil {
						t.Fatal(err)
					}
					if w.cred != nil {
						err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
							if err != nil {
								return err
							}
							return os.Lchown(p, unprivilegedUID, unprivilegedUID)
						})
						if err != nil {
							t.Fatal(err)
						}
					}
					for _, src := range srcs {
						r.trust(t, src)
					}

					const sysctl = "/proc/sys/kernel/printk_ratelimit"
					cur, err := os.ReadFile(sysctl)
					if err != nil {
						t.Fatal(err)
					}
					if got := r.call(t, "probe_write", map[string]string{"path": sysctl, "text": string(cur)}); got["ok"] != false {
						t.Errorf("a sysctl write succeeded: %v", got)
					}
					status := r.call(t, "probe_read", map[string]string{"path": "/proc/self/status"})
					text, _ := status["text"].(string)
					if !strings.Contains(text, "\nUid:\t"+strconv.Itoa(w.uid)+"\t") {
						t.Errorf("the runtime's status, want uid %d: %v", w.uid, status)
					}

					sock := filepath.Join(r.ws, "agent.sock")
					ln, err := net.Listen("unix", sock)
					if err != nil {
						t.Fatal(err)
					}
					defer ln.Close()
					if err := os.Chmod(sock, 0o777); err != nil { // only the sandbox may refuse it
						t.Fatal(err)
					}
					// The host refuses node:net first (its fetch goes through the core's fetch
					// proxy); a child runtime, which has no such refusal, meets the kernel's.
					if got := r.call(t, "net_probe", map[string]string{"path": sock}); got["ok"] != false || got["code"] != "NetworkRefused" {
						t.Errorf("node:net to a unix socket in the sandboxed host: %v, want the host's NetworkRefused", got)
					}
					script := fmt.Sprintf(`const s = require("node:net").connect({ path: %q }); s.on("connect", () => process.exit(0)); s.on("error", (e) => { process.stderr.write(String(e.code)); process.exit(1); });`, sock)
					if got := r.call(t, "probe_exec", map[string]any{"argv": []string{runtimePath, "-e", script}}); got["ok"] != false || got["stderr"] != "EACCES" {
						t.Errorf("connect to a unix socket in the read-only workspace: %v, want EACCES", got)
					}

					doctor := r.run(t, "doctor").stdout
					if !regexp.MustCompile(`kernel uid +` + strconv.Itoa(w.uid) + ` `).MatchString(doctor) {
						t.Errorf("doctor does not show kernel uid %d:\n%s", w.uid, doctor)
					}
					for _, want := range []string{"read-only", "/proc/sys", "seccomp", "default allow"} {
						if !strings.Contains(doctor, want) {
							t.Errorf("doctor lacks %q:\n%s", want, doctor)
						}
					}
				})
			}
		})
	}
}
