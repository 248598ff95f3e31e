package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// writeScript puts an executable script tool into the env's $CWX_HOME/tools/.
func (e *env) writeScript(file, src string) string {
	e.t.Helper()
	dir := ScriptToolsDir(e.home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	p := filepath.Join(dir, file)
	if err := os.WriteFile(p, []byte(src), 0o700); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func frontmatter(name, extra string) string {
	return "#!/bin/sh\n# ---\n# name: " + name + "\n# description: A test script.\n" + extra + "# ---\n"
}

func callCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func builtinNotes(m *Manager) string {
	for _, b := range m.BuiltinModules() {
		if b.ID == ScriptToolsModule {
			return strings.Join(b.Notes, "\n")
		}
	}
	return ""
}

// TestScriptTools: a script in $CWX_HOME/tools/ is a tool owned by host:script-tools on the
// builtin tier, fed its input as JSON on stdin; its `approval: auto` is ignored (the card is
// shown) and reported; names of natives, reserved names and plugin tools are refused and
// reported; a timeout kills the whole process group; output past the bound kills it too.
func TestScriptTools(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool") // echo_text
		a := &approver{d: AllowOnce}
		m := e.open(func(o *Options) { o.Approval = "ask"; o.Approver = a })
		reconcile(t, m) // the plugin's first activation claims echo_text
		e.writeScript("echo.sh", frontmatter("script_echo", "# approval: auto\n# input_schema: {\"type\": \"object\", \"properties\": {\"text\": {\"type\": \"string\"}}}\n")+
			"input=$(cat)\nprintf 'got %s in %s with %s' \"$input\" \"$(pwd)\" \"${SECRET_TOKEN:-no secret}\"\n")
		e.writeScript("shadow-native.sh", frontmatter("Read-File", "")+"echo no\n")
		e.writeScript("shadow-plugin.sh", frontmatter("echo-text", "")+"echo no\n")
		e.writeScript("reserved.sh", frontmatter("bash_helper", "")+"echo no\n")
		pidFile := filepath.Join(t.TempDir(), "pids")
		e.writeScript("hang.sh", frontmatter("script_hang", "# timeout: 1\n")+
			"sleep 300 &\necho $! > "+pidFile+"\necho $$ >> "+pidFile+"\nwait\n")
		e.writeScript("flood.sh", frontmatter("script_flood", "")+"yes 0123456789abcdef\n")
		e.writeScript("leave.sh", frontmatter("script_leave", "# timeout: 120\n")+
			"sleep 300 &\necho $! > "+pidFile+"\necho bye\n")
		e.writeScript("wait.sh", frontmatter("script_wait", "# timeout: 120\n")+
			"sleep 300 &\necho $! > "+pidFile+"\necho $$ >> "+pidFile+"\nwait\n")
		t.Setenv("SECRET_TOKEN", "leaked")
		reconcile(t, m)

		if !hasTool(m, "script_echo") || hasTool(m, "Read-File") || hasTool(m, "bash_helper") {
			var names []string
			for _, ti := range m.Tools() {
				names = append(names, ti.Name)
			}
			t.Fatalf("tools: %v; builtin modules: %+v", names, m.BuiltinModules())
		}
		for _, ti := range m.Tools() {
			if ti.Name == "script_echo" && (ti.PluginID != "host:script-tools" || ti.Origin != "extension:host:script-tools") {
				t.Errorf("script_echo is %+v", ti)
			}
			if ti.Name == "echo-text" || (ti.Name == "echo_text" && ti.PluginID != "fixture-tool") {
				t.Errorf("a script shadows a plugin tool: %+v", ti)
			}
		}
		if b := m.Host(protocol.TierBuiltin); b.State != supervisor.StateReady {
			t.Errorf("builtin tier %+v, want ready", b)
		}
		for _, b := range m.BuiltinModules() {
			if b.ID == ScriptToolsModule && (!b.Needed || b.State != "active" || b.Tools != 5 || b.Problem != "") {
				t.Errorf("script-tools: %+v", b)
			}
			if b.ID != ScriptToolsModule && (b.Needed || b.State != "idle") {
				t.Errorf("%s without work: %+v", b.ID, b)
			}
		}
		notes := builtinNotes(m)
		for _, want := range []string{
			"script echo.sh: `approval: auto` ignored: a script tool always needs approval",
			"script shadow-native.sh: refused: tool name `Read-File` would shadow the built-in tool `read_file`",
			"script shadow-plugin.sh: refused: tool name `echo-text` would shadow the tool of plugin `fixture-tool`",
			"script reserved.sh: refused: tool name `bash_helper` uses the reserved prefix `bash_`",
		} {
			if !strings.Contains(notes, want) {
				t.Errorf("notes lack %q:\n%s", want, notes)
			}
		}
		reconcile(t, m) // the same notes again are not reported again, and the owner is kept
		if got := strings.Count(builtinNotes(m), "approval: auto"); got != 1 {
			t.Errorf("the ignored approval is listed %d times", got)
		}

		ws := t.TempDir()
		res, err := m.CallTool(callCtx(t), "script_echo", input(`{"text":"hi"}`), CallOptions{Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		if want := `got {"text":"hi"} in ` + ws + ` with no secret`; res.Text() != want {
			t.Errorf("result %q, want %q", res.Text(), want)
		}
		if a.asked() != 1 {
			t.Errorf("approval cards shown: %d, want 1 (a script's approval: auto is ignored)", a.asked())
		}

		_, err = m.CallTool(callCtx(t), "script_hang", input(`{}`), CallOptions{Workspace: ws})
		if err == nil || !strings.Contains(err.Error(), "ran past its timeout of 1000 ms") {
			t.Fatalf("hang: %v", err)
		}
		raw, _ := os.ReadFile(pidFile)
		pids := strings.Fields(string(raw))
		if len(pids) != 2 {
			t.Fatalf("pid file: %q", raw)
		}
		for _, p := range pids {
			pid, _ := strconv.Atoi(p)
			eventually(t, 10*time.Second, "process "+p+" gone", func() bool { return gone(pid) })
		}

		_, err = m.CallTool(callCtx(t), "script_flood", input(`{}`), CallOptions{Workspace: ws})
		if err == nil || !strings.Contains(err.Error(), "its output passed 65536 bytes") {
			t.Fatalf("flood: %v", err)
		}

		// a script that exits is done, although a child it left behind holds its stdout open;
		// the child goes with its group
		if err := os.Remove(pidFile); err != nil {
			t.Fatal(err)
		}
		res, err = m.CallTool(callCtx(t), "script_leave", input(`{}`), CallOptions{Workspace: ws})
		if err != nil || res.Text() != "bye\n" {
			t.Fatalf("leave: %q, %v", res.Text(), err)
		}
		raw, _ = os.ReadFile(pidFile)
		for _, p := range strings.Fields(string(raw)) {
			pid, _ := strconv.Atoi(p)
			eventually(t, 10*time.Second, "left-behind process "+p+" gone", func() bool { return gone(pid) })
		}

		// a cancelled call kills the script's whole group as well
		if err := os.Remove(pidFile); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(callCtx(t))
		done := make(chan error, 1)
		go func() { _, err := m.CallTool(ctx, "script_wait", input(`{}`), CallOptions{Workspace: ws}); done <- err }()
		eventually(t, 30*time.Second, "script_wait started its child", func() bool {
			raw, _ := os.ReadFile(pidFile)
			return len(strings.Fields(string(raw))) == 2
		})
		cancel()
		if err := <-done; !errors.Is(err, ErrCancelled) {
			t.Fatalf("cancelled call: %v", err)
		}
		raw, _ = os.ReadFile(pidFile)
		for _, p := range strings.Fields(string(raw)) {
			pid, _ := strconv.Atoi(p)
			eventually(t, 10*time.Second, "process "+p+" gone after the cancel", func() bool { return gone(pid) })
		}

		// the module's data lives in the builtin tier's folder, never in the plugin tier's
		if fi, err := os.Stat(filepath.Join(e.home, "extension-host", "data-builtin", "modules", "script-tools")); err != nil || !fi.IsDir() {
			t.Errorf("the module's data directory: %v", err)
		}
		if entries, _ := os.ReadDir(filepath.Join(e.home, "extension-host", "data", "plugins")); len(entries) != 1 {
			t.Errorf("plugin data directories: %v, want only fixture-tool's", entries)
		}
	})
}

// gone reports that pid no longer runs (absent, or a zombie waiting for its reaper).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// TestBuiltinTierStartsOnlyForWork: with no script tool (and no other module work) the builtin
// tier is never started; a module whose bundled file differs from its pin gets no owner, its
// reason is listed, and no builtin host starts for it.
func TestBuiltinTierStartsOnlyForWork(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool")
		m := e.open(nil)
		reconcile(t, m)
		if st := m.Host(protocol.TierBuiltin).State; st != supervisor.StateIdle {
			t.Errorf("builtin tier %s with no module work", st)
		}

		e.writeScript("echo.sh", frontmatter("script_echo", "")+"echo hi\n")
		tampered := bundle.Embedded()
		tampered.Modules = append([]bundle.Module(nil), tampered.Modules...)
		for i := range tampered.Modules {
			tampered.Modules[i].Bytes = append([]byte("// changed\n"), tampered.Modules[i].Bytes...)
		}
		m2 := e.open(func(o *Options) { o.Bundle = tampered })
		reconcile(t, m2)
		if st := m2.Host(protocol.TierBuiltin).State; st != supervisor.StateIdle {
			t.Errorf("builtin tier %s for a tampered module", st)
		}
		if hasTool(m2, "script_echo") {
			t.Error("a tampered module's tool is live")
		}
		var problem string
		for _, b := range m2.BuiltinModules() {
			if b.ID == ScriptToolsModule {
				problem = b.Problem
			}
		}
		if !strings.Contains(problem, "no host started for it") || !strings.Contains(problem, "pinned") {
			t.Errorf("problem %q", problem)
		}
	})
}

// TestTiersAreIndependent: killing the plugin tier's runtime while a script tool runs on the
// builtin tier lets that call complete, and killing the builtin tier's runtime while a plugin
// tool runs lets that one complete; the other tier keeps serving both times.
func TestTiersAreIndependent(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool", "slow-tool") // echo_text, slow_wait
		marker := filepath.Join(t.TempDir(), "started")
		e.writeScript("slow.sh", frontmatter("script_slow", "")+"cat >/dev/null\ntouch "+marker+"\nsleep 2\necho done\n")
		m := e.open(nil)
		reconcile(t, m)
		plugin0, builtin0 := m.Host(protocol.TierPlugin), m.Host(protocol.TierBuiltin)
		if plugin0.State != supervisor.StateReady || builtin0.State != supervisor.StateReady {
			t.Fatalf("tiers: %+v %+v", plugin0, builtin0)
		}

		// the plugin tier dies under a builtin call
		done := make(chan error, 1)
		var res ToolResult
		go func() {
			var err error
			res, err = m.CallTool(callCtx(t), "script_slow", input(`{}`), CallOptions{Workspace: t.TempDir()})
			done <- err
		}()
		eventually(t, 30*time.Second, "the script runs", func() bool { _, err := os.Stat(marker); return err == nil })
		if err := m.KillRuntime(protocol.TierPlugin); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil || res.Text() != "done\n" {
			t.Fatalf("the builtin call: %q, %v", res.Text(), err)
		}
		if b := m.Host(protocol.TierBuiltin); b.RuntimePID != builtin0.RuntimePID || b.Generation != builtin0.Generation || b.Crashes != 0 {
			t.Errorf("the builtin tier was touched: %+v, was %+v", b, builtin0)
		}
		eventually(t, 30*time.Second, "echo_text back on a new plugin host", func() bool {
			r, err := m.CallTool(callCtx(t), "echo_text", input(`{"text":"x","mode":"string"}`), CallOptions{})
			return err == nil && r.Text() == "x"
		})

		// the builtin tier dies under a plugin call
		plugin1 := m.Host(protocol.TierPlugin)
		go func() {
			var err error
			res, err = m.CallTool(callCtx(t), "slow_wait", input(`{"ms":1500}`), CallOptions{})
			done <- err
		}()
		eventually(t, 30*time.Second, "slow_wait in flight", func() bool { return inflight(m, "fixture-slow-tool") == 1 })
		if err := m.KillRuntime(protocol.TierBuiltin); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil || res.Text() != `{"waited":1500}` {
			t.Fatalf("the plugin call: %q, %v", res.Text(), err)
		}
		if r, err := m.CallTool(callCtx(t), "echo_text", input(`{"text":"y","mode":"string"}`), CallOptions{}); err != nil || r.Text() != "y" {
			t.Errorf("echo_text after the builtin tier died: %q, %v", r.Text(), err)
		}
		if p := m.Host(protocol.TierPlugin); p.RuntimePID != plugin1.RuntimePID || p.Generation != plugin1.Generation {
			t.Errorf("the plugin tier was touched: %+v, was %+v", p, plugin1)
		}
		eventually(t, 30*time.Second, "script_slow back on a new builtin host", func() bool {
			_ = os.Remove(marker)
			r, err := m.CallTool(callCtx(t), "script_slow", input(`{}`), CallOptions{Workspace: t.TempDir()})
			return err == nil && r.Text() == "done\n"
		})
	})
}

// TestScriptNameTakenInTheSameReconcile: a plugin that first registers a script's name in the
// same Reconcile wins it; the script-tools owner, which failed with the clash, is activated
// again in that Reconcile without that script and serves the others.
func TestScriptNameTakenInTheSameReconcile(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("tool") // echo_text, never activated before
		e.writeScript("clash.sh", frontmatter("echo_text", "")+"echo script\n")
		e.writeScript("ok.sh", frontmatter("script_ok", "")+"echo ok\n")
		m := e.open(nil)
		reconcile(t, m)
		if !hasTool(m, "echo_text") {
			t.Fatal("the plugin lost echo_text")
		}
		for _, ti := range m.Tools() {
			if ti.Name == "echo_text" && ti.PluginID != "fixture-tool" {
				t.Fatalf("echo_text is %s's", ti.PluginID)
			}
		}
		if !hasTool(m, "script_ok") {
			t.Fatalf("script_ok not live: %+v", m.BuiltinModules())
		}
		if !strings.Contains(builtinNotes(m), "script clash.sh: refused: tool name `echo_text` would shadow the tool of plugin `fixture-tool`") {
			t.Errorf("notes: %s", builtinNotes(m))
		}
	})
}
