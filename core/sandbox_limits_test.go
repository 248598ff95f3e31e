package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestSandboxMemoryExhausted: a plugin that retains objects past the limit ends the sandboxed
// host; the call's error and host status name the limit, the core restarts the host within
// the crash budget, and the builtin tier (unsandboxed) is untouched.
func TestSandboxMemoryExhausted(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig("sandbox = \"required\"\nmemory_limit_mib = 512\n")
		e.install("memory-hog")
		e.writeScript("idle.sh", frontmatter("script_idle", "")+"echo idle\n") // gives the builtin tier work
		m := e.open(func(o *Options) {
			o.Tier = func(so *supervisor.Options) {
				so.HandshakeTimeout = 20 * time.Second
				so.RestartBackoff = 10 * time.Millisecond
			}
		})
		reconcile(t, m)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		builtin := m.Host(protocol.TierBuiltin)
		if builtin.State != supervisor.StateReady {
			t.Fatalf("builtin tier %+v, want ready", builtin)
		}
		first := m.Host(protocol.TierPlugin)

		_, err := m.CallTool(ctx, "memory_exhaust", input(`{}`), CallOptions{})
		t.Logf("call: %v", err)
		if err == nil {
			t.Fatal("memory_exhaust returned")
		}
		eventually(t, 60*time.Second, "the plugin host restarts", func() bool {
			h := m.Host(protocol.TierPlugin)
			return h.Generation > first.Generation && h.State == supervisor.StateReady
		})
		var plugin, bt TierStatus
		for _, st := range m.Status() {
			if st.Tier == protocol.TierPlugin {
				plugin = st
			} else {
				bt = st
			}
		}
		t.Logf("last failure: %s\ntail: %s", plugin.LastFailure, plugin.StderrTail)
		// Node reaches V8's heap cap (--max-old-space-size=256) or the data limit first,
		// depending on what it was allocating when it failed; Bun only the data limit.
		named := strings.Contains(plugin.LastFailure, "the runtime exceeded its memory limit of 512 MiB (RLIMIT_DATA 512 MiB") ||
			rt.Name == "node" && strings.Contains(plugin.LastFailure, "the runtime exceeded its memory limit: the JavaScript heap reached its cap of 256 MiB (--max-old-space-size; the data limit is RLIMIT_DATA 512 MiB")
		if !named {
			t.Errorf("host status last failure %q does not name the memory limit", plugin.LastFailure)
		}
		if !strings.Contains(err.Error(), "exceeded its memory limit of 512 MiB") && !strings.Contains(err.Error(), "its cap of 256 MiB") {
			t.Errorf("the call's error %q does not name the memory limit", err)
		}
		if plugin.State != supervisor.StateReady {
			t.Errorf("plugin tier %s after one crash, want ready (crash budget %d)", plugin.State, supervisor.DefaultCrashLimit)
		}
		res, err := m.CallTool(ctx, "memory_hog", input(`{"mib":0}`), CallOptions{})
		if err != nil || !strings.Contains(res.Text(), `"held_mib":0`) {
			t.Fatalf("after the restart: %v %v", res, err)
		}
		if now := m.Host(protocol.TierBuiltin); now.RuntimePID != builtin.RuntimePID || now.Generation != builtin.Generation || now.State != supervisor.StateReady {
			t.Errorf("builtin tier changed: %+v, was %+v", now, builtin)
		}
		if bt.Sandbox != BuiltinSandboxNote {
			t.Errorf("builtin tier status says %q", bt.Sandbox)
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", builtin.RuntimePID)); err != nil || !strings.Contains(string(b), "Max data size") {
			t.Errorf("builtin runtime gone: %v", err)
		}
	})
}

// TestSandboxWorkspace: the workspace (the core's working directory) is not mounted by
// default, and under sandbox_workspace = "read" it is bound read-only: reads work, writes
// fail and reach nothing.
func TestSandboxWorkspace(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		for _, mode := range []string{"", "read"} {
			t.Run("workspace="+mode, func(t *testing.T) {
				e := newEnv(t, rt)
				conf := "sandbox = \"required\"\n"
				if mode != "" {
					conf += fmt.Sprintf("sandbox_workspace = %q\n", mode)
				}
				e.writeConfig(conf)
				e.install("secret-probe")
				ws := t.TempDir()
				file := filepath.Join(ws, "main.go")
				if err := os.WriteFile(file, []byte("package main\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Chdir(ws)
				m := e.open(nil)
				reconcile(t, m)
				read := callProbe(t, m, "probe_read", map[string]string{"path": file})
				if mode == "" {
					if read.OK {
						t.Fatalf("the workspace is readable without sandbox_workspace: %+v", read)
					}
					return
				}
				if !read.OK || read.Text != "package main\n" {
					t.Fatalf("read the workspace under sandbox_workspace = \"read\": %+v", read)
				}
				for _, path := range []string{file, filepath.Join(ws, "new.txt")} {
					if p := callProbe(t, m, "probe_write", map[string]string{"path": path, "text": "changed"}); p.OK {
						t.Errorf("write %s succeeded: %+v", path, p)
					}
				}
				if b, _ := os.ReadFile(file); string(b) != "package main\n" {
					t.Errorf("the workspace file became %q", b)
				}
				if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
					t.Error("a new workspace file reached the disk")
				}
			})
		}
	})
}

// TestSandboxDSHPlugins: the DSH fixtures of testdata/plugins behave under sandbox =
// "required" as they do unsandboxed (TestDSHDefineToolThroughShim, TestDSHServiceRefusesByName):
// defineTool's schema, validation and render, tools.get, and the named refusal of presentAs.
func TestSandboxDSHPlugins(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.writeConfig("sandbox = \"required\"\n")
		e.install("dsh-define-tool", "dsh-present-as", "dsh-tools-get")
		m := e.open(nil)
		reconcile(t, m)
		if st := m.SandboxStatus(); !st.Active {
			t.Fatalf("sandbox not active: %+v", st)
		}
		res, err := m.CallTool(context.Background(), "shout", input(`{"word":"hey","times":2,"style":"stars"}`), CallOptions{})
		if err != nil || res.Text() != "hey x2: *HEY HEY*" {
			t.Fatalf("shout: %v %v", res, err)
		}
		if _, err := m.CallTool(context.Background(), "shout", input(`{"times":"two"}`), CallOptions{}); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("invalid input: %v, want ErrInvalidInput", err)
		}
		o, _ := m.Owner("fixture-dsh-present-as")
		if o.State != "failed" || !strings.Contains(o.Reason, "`tools.presentAs` is not provided by cwx") {
			t.Fatalf("owner %+v, want failed naming tools.presentAs", o)
		}
		res, err = m.CallTool(context.Background(), "lookup_tool", input(`{"name":"deferred_probe"}`), CallOptions{})
		if err != nil || !strings.Contains(string(res.Structured), `"plugin":"fixture-dsh-tools-get"`) {
			t.Fatalf("tools.get: %v %v", res, err)
		}
	})
}
