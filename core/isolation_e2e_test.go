package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// The tests here give plugins hosts of their own (isolation = "process"; ARCHITECTURE.md,
// “Per-plugin hosts”) and check that one host's crash, hang or compromise touches only that
// host: the other hosts keep their processes, generations and crash budgets, and answer.

// isolate is config.toml's text giving each of ids a host of its own.
func isolate(ids ...string) string {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "\n[plugins.%q]\nisolation = \"process\"\n", id)
	}
	return b.String()
}

// hostStatus is the status of host k in m (the zero value when m lists no such host).
func hostStatus(m *Manager, k protocol.HostKey) TierStatus {
	for _, st := range m.Status() {
		if st.Tier == k.Tier && st.Group == k.Group {
			return st
		}
	}
	return TierStatus{}
}

func ownHost(id string) protocol.HostKey {
	return protocol.HostKey{Tier: protocol.TierPlugin, Group: id}
}

// fastRestarts shortens a host's restart backoff and heartbeat for the tests here.
func fastRestarts(o *Options) {
	o.Tier = func(so *supervisor.Options) {
		so.HandshakeTimeout = 20 * time.Second
		so.RestartBackoff = 20 * time.Millisecond
		so.HeartbeatInterval = 100 * time.Millisecond
		so.UnresponsiveAfter = 300 * time.Millisecond
		so.HangKillAfter = time.Minute // SIGSTOP below must not be answered by a kill
	}
}

// TestIsolatedHostCrashLoop: a plugin with a host of its own kills that host (SIGKILL through
// a child, which the host cannot refuse) on every call until its crash budget is spent. The
// shared host's echo tool and an isolated guard's pre-execute hook answer between the crashes
// and after; the shared host and the guard's host keep their process, generation and an
// untouched budget; `host status` lists the three hosts, each with its plugins, and blames
// the crashing plugin on its own host.
func TestIsolatedHostCrashLoop(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig(isolate("fixture-crash-tool", "fixture-guard"))
		e.install("crash-tool", "tool", "hook-guard")
		m := e.open(fastRestarts)
		reconcile(t, m)

		shared, crashK, guardK := protocol.SharedHost(protocol.TierPlugin), ownHost("fixture-crash-tool"), ownHost("fixture-guard")
		if got := m.HostOf("fixture-crash-tool"); got != crashK {
			t.Fatalf("HostOf = %v", got)
		}
		for k, want := range map[protocol.HostKey][]string{shared: {"fixture-tool"}, crashK: {"fixture-crash-tool"}, guardK: {"fixture-guard"}} {
			st := hostStatus(m, k)
			if st.State != supervisor.StateReady || !slices.Equal(st.Plugins, want) || st.Owners != 1 || st.RuntimePID == 0 {
				t.Fatalf("%v: %+v, want ready with %v", k, st, want)
			}
		}
		before := map[protocol.HostKey]TierStatus{shared: hostStatus(m, shared), guardK: hostStatus(m, guardK)}
		if before[shared].RuntimePID == before[guardK].RuntimePID || before[shared].RuntimePID == hostStatus(m, crashK).RuntimePID {
			t.Fatal("the hosts share a process")
		}
		denied := func() {
			t.Helper()
			_, err := m.CallTool(context.Background(), "read_file", input(`{"file_path":"secret.txt"}`), CallOptions{})
			if err == nil || !strings.Contains(err.Error(), "fixture-guard keeps secret.txt unread") {
				t.Fatalf("the isolated guard's hook did not answer: %v", err)
			}
		}
		echo := func(i int) {
			t.Helper()
			res, err := m.CallTool(context.Background(), "echo_text", input(fmt.Sprintf(`{"text":"n%d"}`, i)), CallOptions{})
			if err != nil || !strings.Contains(res.Text(), fmt.Sprintf(`"n%d"`, i)) {
				t.Fatalf("echo_text %d: %v %+v", i, err, res)
			}
		}
		for i := 0; ; i++ {
			if st := hostStatus(m, crashK); st.State == supervisor.StateFailed {
				break
			}
			if i > 10 {
				t.Fatalf("the crashing host's budget was never spent: %+v", hostStatus(m, crashK))
			}
			g0 := hostStatus(m, crashK).Generation
			if _, err := m.CallTool(context.Background(), "crash_probe", input(`{}`), CallOptions{}); err == nil {
				t.Fatal("crash_probe answered")
			}
			echo(i)
			denied()
			eventually(t, 30*time.Second, "the crashing host restarted or failed", func() bool {
				st := hostStatus(m, crashK)
				return st.State == supervisor.StateFailed || st.State == supervisor.StateReady && st.Generation > g0 && hasTool(m, "crash_probe")
			})
		}
		echo(99)
		denied()
		for k, b := range before {
			now := hostStatus(m, k)
			if now.RuntimePID != b.RuntimePID || now.Generation != b.Generation || now.Crashes != 0 || now.State != supervisor.StateReady {
				t.Fatalf("%v changed: before %+v, now %+v", k, b, now)
			}
		}
		st := hostStatus(m, crashK)
		if st.Crashes < 3 || !strings.Contains(st.LastBlame, "plugin `fixture-crash-tool`") {
			t.Fatalf("the crashing host: %+v; want its budget spent and the blame on its plugin", st)
		}
		if hostStatus(m, shared).LastBlame != "" {
			t.Fatalf("the shared host was blamed: %+v", hostStatus(m, shared))
		}
		if _, err := m.CallTool(context.Background(), "crash_probe", input(`{}`), CallOptions{}); !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("a call to the failed host: %v; want not available", err)
		}
	})
}

// TestIsolatedHostSeesOnlyItsOwn: a plugin with a host of its own, wrapping JSON.stringify
// and every other vector of the snoop fixture, sees no ticket or owner token of a plugin in
// another host while that one works; a sandboxed plugin with a host of its own reads and
// writes its own data folder and cannot read or write another plugin's, nor see the other
// staged plugins (in the shared host it can: the whole data folder is bound there).
func TestIsolatedHostSeesOnlyItsOwn(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		t.Run("frames", func(t *testing.T) {
			e := newEnv(t, rt)
			e.writeConfig(isolate("fixture-snoop"))
			e.install("snoop", "tool")
			m := e.open(nil)
			reconcile(t, m)
			tool, _ := m.Owner("fixture-tool")
			for i := range 20 {
				if _, err := m.CallTool(context.Background(), "echo_text", input(fmt.Sprintf(`{"text":"x%d"}`, i)), CallOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := m.CallTool(context.Background(), "snoop_seen", input(`{}`), CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(res.Text(), "x19") {
				t.Fatalf("the snoop saw another host's tool input: %.300s", res.Text())
			}
			owner := ownerOf(t, m, "fixture-tool").Ref
			if strings.Contains(res.Text(), owner.OwnerToken) {
				t.Fatalf("the snoop saw fixture-tool's owner token (owner %+v)", tool)
			}
		})
		t.Run("files", func(t *testing.T) {
			needBwrap(t)
			e := newEnv(t, rt)
			e.writeConfig("sandbox = \"required\"\nmemory_limit_mib = 512\n" + isolate("fixture-secret-probe"))
			e.install("secret-probe", "tool")
			m := e.open(nil)
			reconcile(t, m)
			lay := plugins.Layout{Home: e.home}
			own := filepath.Join(lay.DataDir("fixture-secret-probe"), "note")
			if p := callProbe(t, m, "probe_write", map[string]string{"path": own, "text": "mine"}); !p.OK {
				t.Fatalf("write in its own data folder: %+v", p)
			}
			if p := callProbe(t, m, "probe_read", map[string]string{"path": own}); !p.OK || p.Text != "mine" {
				t.Fatalf("read in its own data folder: %+v", p)
			}
			other := filepath.Join(lay.DataDir("fixture-tool"), "note")
			if p := callProbe(t, m, "probe_write", map[string]string{"path": other, "text": "theirs"}); p.OK {
				t.Fatalf("wrote another plugin's data folder: %+v", p)
			}
			rec, err := m.Plugins().Get("fixture-tool")
			if err != nil {
				t.Fatal(err)
			}
			staged := filepath.Join(lay.StageDir("fixture-tool", rec.Closure), "index.mjs")
			for _, path := range []string{staged, filepath.Join(e.home, "extension-host", "data")} {
				if p := callProbe(t, m, "probe_read", map[string]string{"path": path}); p.OK {
					t.Fatalf("read %s from its own host: %+v", path, p)
				}
			}
			if st := hostStatus(m, ownHost("fixture-secret-probe")); !strings.Contains(st.Sandbox, "only this plugin's files") {
				t.Fatalf("its host's sandbox note: %q", st.Sandbox)
			}
		})
	})
}

// TestIsolatedHostStopped: SIGSTOP of one plugin's own host times out only that host's calls;
// the shared host answers meanwhile, and the stopped host answers again after SIGCONT.
func TestIsolatedHostStopped(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig(isolate("fixture-tool"))
		e.install("tool", "slow-tool")
		m := e.open(fastRestarts)
		reconcile(t, m)
		pid := m.HostAt(m.HostOf("fixture-tool")).RuntimePID
		if pid == 0 || pid == m.Host(TierPlugin).RuntimePID {
			t.Fatalf("fixture-tool's host pid %d, shared %d", pid, m.Host(TierPlugin).RuntimePID)
		}
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(pid, syscall.SIGCONT)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := m.CallTool(ctx, "echo_text", input(`{"text":"a"}`), CallOptions{})
		cancel()
		if err == nil {
			t.Fatal("the stopped host answered")
		}
		if _, err := m.CallTool(context.Background(), "slow_wait", input(`{"ms":1}`), CallOptions{}); err != nil {
			t.Fatalf("slow_wait in the shared host while another host is stopped: %v", err)
		}
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		eventually(t, 20*time.Second, "the continued host answers", func() bool {
			_, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"b"}`), CallOptions{})
			return err == nil
		})
		if h := m.HostAt(m.HostOf("fixture-tool")); h.RuntimePID != pid {
			t.Fatalf("the stopped host was replaced: pid %d, was %d", h.RuntimePID, pid)
		}
	})
}

// TestIsolationMoves: a config rewrite moves a plugin from the shared host to its own and
// back; each move revokes its owner and activates it in the other host, the other plugins
// of the shared host keep their owners, and a plugin's own host is stopped once no plugin
// needs it.
func TestIsolationMoves(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "command")
		m := e.open(nil)
		reconcile(t, m)
		shared := m.Host(TierPlugin)
		stay := ownerOf(t, m, "fixture-command").Ref
		e.writeConfig(isolate("fixture-tool"))
		reconcile(t, m)
		if got := m.HostOf("fixture-tool"); got != ownHost("fixture-tool") {
			t.Fatalf("HostOf after the move: %v", got)
		}
		own := m.HostAt(m.HostOf("fixture-tool"))
		if own.RuntimePID == 0 || own.RuntimePID == shared.RuntimePID {
			t.Fatalf("own host %+v, shared %+v", own, shared)
		}
		if res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"moved"}`), CallOptions{}); err != nil || !strings.Contains(res.Text(), "moved") {
			t.Fatalf("echo_text in its own host: %v %+v", err, res)
		}
		if o, _ := m.Owner("fixture-tool"); o.Host != "plugin:fixture-tool" {
			t.Fatalf("owner %+v", o)
		}
		if now := ownerOf(t, m, "fixture-command").Ref; now != stay {
			t.Fatalf("fixture-command's owner changed: %+v, was %+v", now, stay)
		}
		e.writeConfig("")
		reconcile(t, m)
		if o, _ := m.Owner("fixture-tool"); o.Host != "plugin" || o.State != "active" {
			t.Fatalf("owner back in the shared host: %+v", o)
		}
		if st := hostStatus(m, ownHost("fixture-tool")); st.Tier != "" {
			t.Fatalf("its own host is still listed: %+v", st)
		}
		if err := syscall.Kill(own.RuntimePID, 0); err == nil || !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("its own host's runtime (pid %d) still runs: %v", own.RuntimePID, err)
		}
	})
}

// TestIsolatedHookHolderRestarting: while the own host of a plugin holding a pre-execute hook
// restarts, its hook cannot be asked, so a gated call in another host is denied naming the
// holder and its host (fail closed); once the host is back, the call runs.
func TestIsolatedHookHolderRestarting(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig(isolate("fixture-guard"))
		e.install("tool", "hook-guard")
		m := e.open(func(o *Options) {
			o.Tier = func(so *supervisor.Options) {
				so.HandshakeTimeout = 20 * time.Second
				so.RestartBackoff = 3 * time.Second // the window the call below meets
			}
		})
		reconcile(t, m)
		k := ownHost("fixture-guard")
		g0 := hostStatus(m, k).Generation
		if err := m.KillHost(k); err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, "the guard's host noticed its end", func() bool { return hostStatus(m, k).State != supervisor.StateReady })
		_, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"x"}`), CallOptions{})
		var down *HooksDownError
		if !errors.As(err, &down) || !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "fixture-guard") || !strings.Contains(err.Error(), "its own host is") {
			t.Fatalf("a call while the isolated hook holder restarts: %v; want denied naming fixture-guard's own host", err)
		}
		eventually(t, 30*time.Second, "the guard's host is back", func() bool {
			st := hostStatus(m, k)
			return st.State == supervisor.StateReady && st.Generation > g0 && len(m.reg.Hooks()) == 1
		})
		if res, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"back"}`), CallOptions{}); err != nil || !strings.Contains(res.Text(), "back") {
			t.Fatalf("after the restart: %v %+v", err, res)
		}
	})
}
