package runtime

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/seccomp/seccomptest"
	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// unprivilegedUID is the uid the tests run bubblewrap as to stand for a cwx started by an
// ordinary user (no passwd entry is needed).
const unprivilegedUID = 61234

// needBwrap returns bubblewrap, failing under CI where make tools installs it.
func needBwrap(t *testing.T) string {
	t.Helper()
	bw, err := ResolveBwrap("", os.Getenv("PATH")+":/usr/bin", "")
	if err != nil {
		if testenv.InCI() {
			t.Fatal("bubblewrap is not installed")
		}
		t.Skip("bubblewrap is not installed")
	}
	return bw
}

// needSetpriv returns util-linux's setpriv, which the core uses for the drop where it is
// installed (make tools installs it under CI), or "" elsewhere.
func needSetpriv(t *testing.T) string {
	t.Helper()
	const p = "/usr/bin/setpriv"
	if _, err := os.Stat(p); err != nil {
		if testenv.InCI() {
			t.Fatalf("setpriv is missing under CI: %v", err)
		}
		t.Logf("no %s: only cwx's own drop is tested", p)
		return ""
	}
	return p
}

// underProfile prepares argv run inside p as the shim runs it: the filter on
// SandboxSeccompFD, go-plugin's cookie for cwx's drop, PATH for the runtime.
func underProfile(t *testing.T, p Profile, filter []byte, argv ...string) *exec.Cmd {
	t.Helper()
	args := append(p.args(false), p.command(argv)...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", shared.CookieKey + "=" + shared.CookieValue}
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	if _, err := wr.Write(filter); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	cmd.ExtraFiles = make([]*os.File, SandboxSeccompFD-2)
	cmd.ExtraFiles[SandboxSeccompFD-3] = rd
	return cmd
}

// openDir is a fresh folder every user may enter (t.TempDir's are private to root).
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cwx-sandbox-probe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyExe copies the executable src to dir/name, mode 0755.
func copyExe(t *testing.T, src, dir, name string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	dst := filepath.Join(dir, name)
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestSeccompUnderTheProfile runs the seccomp probe (this test binary) inside the exact
// plugin-tier profile, as the shim does: with the filter on SandboxSeccompFD, as root with
// the drop to the sandbox uid, and as an unprivileged user. Every refused call fails with its
// errno, clone3 with ENOSYS while threads still start, and the kernel sees the expected uid.
func TestSeccompUnderTheProfile(t *testing.T) {
	bw := needBwrap(t)
	f, err := Filter()
	if err != nil {
		t.Fatal(err)
	}
	dir := openDir(t)
	probe := copyExe(t, os.Args[0], dir, "probe")
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	type run struct {
		name string
		user *SandboxUser
		cred *syscall.Credential // bubblewrap's own identity, nil for this process's
		uid  int
	}
	var runs []run
	if os.Geteuid() == 0 {
		shim := testenv.BuildCWX(t, dir) // for the privilege drop
		runs = append(runs,
			run{"as root, cwx's drop", &SandboxUser{UID: config.DefaultSandboxUID, GID: config.DefaultSandboxUID, Shim: shim}, nil, config.DefaultSandboxUID},
			run{"as an unprivileged user", nil, &syscall.Credential{Uid: unprivilegedUID, Gid: unprivilegedUID}, unprivilegedUID})
		if setpriv := needSetpriv(t); setpriv != "" {
			runs = append(runs, run{"as root, setpriv's drop",
				&SandboxUser{UID: config.DefaultSandboxUID, GID: config.DefaultSandboxUID, Shim: shim, Setpriv: setpriv}, nil, config.DefaultSandboxUID})
		}
	} else {
		runs = append(runs, run{"as this user", nil, nil, os.Geteuid()})
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			owner := r.uid
			if err := os.Chown(data, owner, owner); err != nil && os.Geteuid() == 0 {
				t.Fatal(err)
			}
			if err := os.Chmod(data, 0o711); err != nil { // as the core makes it for a drop
				t.Fatal(err)
			}
			p := Profile{Bwrap: bw, Runtime: probe, Data: data, User: r.user}
			cmd := underProfile(t, p, f.Bytes(), probe, "-test.run=^$")
			cmd.Env = append(cmd.Env, seccomptest.Env+"=plain")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: r.cred}
			rep, err := seccomptest.Decode(cmd)
			if err != nil {
				t.Fatal(err)
			}
			if rep.UID != r.uid {
				t.Errorf("the probe ran as uid %d, want %d", rep.UID, r.uid)
			}
			seccomptest.Check(t, f, rep, seccomptest.Report{})
			seccomptest.CheckNoCaps(t, rep)
		})
	}
}

// workerScript starts a Worker thread (a new OS thread: clone3, refused with ENOSYS, then
// clone) and prints what it sent back; Node and Bun both have node:worker_threads.
const workerScript = `const { Worker } = require("node:worker_threads");
const w = new Worker("require('node:worker_threads').parentPort.postMessage(6 * 7)", { eval: true });
w.on("message", (v) => { console.log("worker " + v); w.terminate(); });
w.on("error", (e) => { console.error(e); process.exit(1); });`

// TestRuntimesUnderTheProfile: Node and Bun start inside the exact profile, with the seccomp
// filter (and, as root, the drop to the sandbox uid), and a Worker thread runs in each.
func TestRuntimesUnderTheProfile(t *testing.T) {
	bw := needBwrap(t)
	f, err := Filter()
	if err != nil {
		t.Fatal(err)
	}
	dir := openDir(t)
	users := map[string]*SandboxUser{"as this user": nil}
	if os.Geteuid() == 0 {
		shim := testenv.BuildCWX(t, dir) // for the privilege drop
		users = map[string]*SandboxUser{"cwx's drop": {UID: config.DefaultSandboxUID, GID: config.DefaultSandboxUID, Shim: shim}}
		if setpriv := needSetpriv(t); setpriv != "" {
			users["setpriv's drop"] = &SandboxUser{UID: config.DefaultSandboxUID, GID: config.DefaultSandboxUID, Shim: shim, Setpriv: setpriv}
		}
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o711); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(data, config.DefaultSandboxUID, config.DefaultSandboxUID); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range testenv.Runtimes() {
		for how, user := range users {
			t.Run(l.Name+"/"+how, func(t *testing.T) {
				rt := l.Get(t)
				p := Profile{Bwrap: bw, Runtime: rt.Path, Data: data, User: user}
				cmd := underProfile(t, p, f.Bytes(), rt.Path, "-e", workerScript)
				out, err := cmd.CombinedOutput()
				if err != nil || string(out) != "worker 42\n" {
					t.Fatalf("%s with a Worker under the profile: %v\n%s", l.Name, err, out)
				}
			})
		}
	}
}
