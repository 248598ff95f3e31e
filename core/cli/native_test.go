package cli

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/natives"
)

// builtinNatives lists the core's native tools as the Manager does.
func builtinNatives() []core.ToolInfo {
	var out []core.ToolInfo
	for _, sp := range natives.BuiltinWith(natives.WriteOptions{}).Specs() {
		out = append(out, core.ToolInfo{Name: sp.Name, Origin: core.OriginNative, Description: sp.Description, InputSchema: sp.InputSchema})
	}
	return out
}

// TestToolCallNative: a native tool is called after the plugins are reconciled (their
// pre-execute hooks must be live to gate it), and the call's workspace defaults to the
// current directory.
func TestToolCallNative(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	tests := []struct {
		name string
		args []string
		ws   string
	}{
		{"default workspace", nil, cwd},
		{"given workspace", []string{"--workspace", ws}, ws},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeCore()
			f.tools = append(demoTools(), builtinNatives()...)
			useFake(t, f)
			mustCLI(t, append([]string{"tool", "call", "read_file", "--input", `{"file_path":"go.mod"}`}, tc.args...)...)
			if !f.logged("reconcile") {
				t.Error("a native call ran before the plugins (and their hooks) were reconciled")
			}
			if !f.logged(`call read_file {"file_path":"go.mod"}`) || f.opts[0].Workspace != tc.ws {
				t.Errorf("calls %q, workspace %q; want %q", f.log, f.opts[0].Workspace, tc.ws)
			}
		})
	}
	// An extension tool still waits for its plugin, and is told the default workspace too.
	f := newFakeCore()
	f.tools = append(demoTools(), builtinNatives()...)
	useFake(t, f)
	mustCLI(t, "tool", "call", "hello_greet")
	if !f.logged("reconcile") || f.opts[0].Workspace != cwd {
		t.Errorf("extension call: log %q, workspace %q", f.log, f.opts[0].Workspace)
	}
}
