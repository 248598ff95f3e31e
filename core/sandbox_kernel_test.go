package core

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// statusUIDs reads the four uids of a /proc/<pid>/status text ("Uid:\treal\teffective\tsaved\tfs").
func statusUIDs(t *testing.T, status string) []int {
	t.Helper()
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			var uids []int
			for _, f := range strings.Fields(rest) {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("Uid line %q", line)
				}
				uids = append(uids, n)
			}
			return uids
		}
	}
	t.Fatalf("no Uid line in %q", status)
	return nil
}

// TestSandboxKernelSurface checks what the plugin tier's sandbox leaves of the kernel
// (ARCHITECTURE.md, “Sandbox”), on Node and Bun: a sysctl write is refused (the current
// value of a harmless one is written back), the kernel sees a non-zero uid for the runtime
// (the sandbox uid when the test runs as root, which owns the data folders), Docker's
// masked /proc files cannot be read, a unix socket inside the read-only workspace refuses
// connect(), and a child process still starts under the seccomp filter.
func TestSandboxKernelSurface(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig("sandbox = \"required\"\nsandbox_workspace = \"read\"\n")
		e.install("secret-probe", "net-probe")
		ws := t.TempDir()
		t.Chdir(ws) // the workspace the sandbox binds read-only
		m := e.open(nil)
		reconcile(t, m)
		if st := m.SandboxStatus(); !st.Active {
			t.Fatalf("sandbox not active: %+v", st)
		}

		const sysctl = "/proc/sys/kernel/printk_ratelimit"
		cur, err := os.ReadFile(sysctl)
		if err != nil {
			t.Fatal(err)
		}
		if p := callProbe(t, m, "probe_read", map[string]string{"path": sysctl}); !p.OK || p.Text != string(cur) {
			t.Errorf("read %s inside: %+v, want %q", sysctl, p, cur)
		}
		if p := callProbe(t, m, "probe_write", map[string]string{"path": sysctl, "text": string(cur)}); p.OK {
			t.Errorf("a sysctl write (%s) succeeded inside the sandbox", sysctl)
		}

		wantUID := os.Geteuid()
		if wantUID == 0 {
			wantUID = config.DefaultSandboxUID
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", m.Host("plugin").RuntimePID))
		if err != nil {
			t.Fatal(err)
		}
		for _, uid := range statusUIDs(t, string(status)) {
			if uid != wantUID {
				t.Errorf("the runtime's uids seen from outside: %v, want all %d", statusUIDs(t, string(status)), wantUID)
				break
			}
		}
		for _, line := range strings.Split(string(status), "\n") {
			for _, set := range []string{"CapInh:", "CapPrm:", "CapEff:", "CapAmb:"} {
				if strings.HasPrefix(line, set) && strings.TrimSpace(strings.TrimPrefix(line, set)) != "0000000000000000" {
					t.Errorf("the runtime holds capabilities: %s", line)
				}
			}
		}
		if p := callProbe(t, m, "probe_read", map[string]string{"path": "/proc/self/status"}); !p.OK || statusUIDs(t, p.Text)[0] != wantUID {
			t.Errorf("the runtime's own /proc/self/status: %+v", p)
		}
		if os.Geteuid() == 0 {
			own := plugins.Layout{Home: e.home}.DataDir("fixture-secret-probe")
			fi, err := os.Lstat(own)
			if err != nil {
				t.Fatal(err)
			}
			if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != wantUID {
				t.Errorf("%s is owned by uid %d, want the sandbox uid %d", own, st.Uid, wantUID)
			}
		}

		_, masked := runtime.KernelSurface()
		for _, path := range masked {
			if p := callProbe(t, m, "probe_read", map[string]string{"path": path}); p.OK && p.Text != "" {
				t.Errorf("masked %s is readable: %q", path, p.Text)
			}
		}

		sock := filepath.Join(ws, "agent.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		// Writable by anyone, so only the sandbox can refuse the connect.
		if err := os.Chmod(sock, 0o777); err != nil {
			t.Fatal(err)
		}
		// The host refuses node:net first (its fetch goes through the core's fetch proxy); a
		// child runtime, which has no such refusal, meets the kernel's.
		if p := callProbe(t, m, "net_probe", map[string]string{"path": sock}); p.OK || p.Code != "NetworkRefused" {
			t.Errorf("node:net to a unix socket in the sandboxed host: %+v, want the host's NetworkRefused", p)
		}
		if p := callProbe(t, m, "probe_exec", map[string]any{"argv": unixConnectArgv(rt.Path, sock)}); p.OK || p.Stderr != "EACCES" {
			t.Errorf("connect to a unix socket in the read-only workspace: %+v, want EACCES", p)
		}
		if p := callProbe(t, m, "probe_read", map[string]string{"path": sock}); p.OK {
			t.Errorf("reading the socket file: %+v", p)
		}
		// Under the filter (clone3 refused with ENOSYS) a child process still starts.
		if p := callProbe(t, m, "probe_exec", map[string]any{"argv": []string{"/bin/sh", "-c", "exit 0"}}); !p.OK {
			t.Errorf("a child process under the filter: %+v", p)
		}
	})
}

// TestSandboxDropFallsBack: as root, when setpriv does not work inside the sandbox (here:
// a path that is not mounted there), the probe falls back to cwx's own drop and the plugin
// tier runs as the sandbox uid all the same.
func TestSandboxDropFallsBack(t *testing.T) {
	needBwrap(t)
	if os.Geteuid() != 0 {
		t.Skip("the drop exists only when cwx runs as root")
	}
	saved := owners.SetprivPath
	owners.SetprivPath = filepath.Join(t.TempDir(), "setpriv")
	t.Cleanup(func() { owners.SetprivPath = saved })
	if err := os.WriteFile(owners.SetprivPath, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig("sandbox = \"required\"\n")
		e.install("secret-probe")
		m := e.open(nil)
		reconcile(t, m)
		st := m.SandboxStatus()
		if !st.Active || st.User == nil || st.User.Setpriv != "" {
			t.Fatalf("sandbox status %+v, want active through cwx's drop", st)
		}
		p := callProbe(t, m, "probe_read", map[string]string{"path": "/proc/self/status"})
		if !p.OK || statusUIDs(t, p.Text)[0] != config.DefaultSandboxUID {
			t.Fatalf("the runtime's status: %+v", p)
		}
	})
}

// unixConnectArgv runs runtime on a script that connects to the unix socket sock and
// writes the error's code on stderr (exit 1), or exits 0 once connected.
func unixConnectArgv(runtime, sock string) []string {
	script := fmt.Sprintf(`const s = require("node:net").connect({ path: %q });
s.on("connect", () => process.exit(0));
s.on("error", (e) => { process.stderr.write(String(e.code)); process.exit(1); });`, sock)
	return []string{runtime, "-e", script}
}
