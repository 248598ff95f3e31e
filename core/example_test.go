package core_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cwx-dev/cwx/core"
)

// Example opens a Manager on a cwx home, lists the live tools and calls one through the
// gate with the embedder's own approval policy. The home here has no plugin enabled, so
// only the native tools are live and nothing is spawned; with plugins enabled and trusted
// (cwx plugin install/review/trust/enable, or Manager.Plugins), Reconcile starts their
// hosts and their tools are listed and called the same way. A program that embeds the
// core starts its main with the shim dispatch (see examples/embed):
//
//	if shared.Invoked(os.Args) {
//		os.Exit(nodeshim.Main(os.Args[2:]))
//	}
func Example() {
	home, _ := os.MkdirTemp("", "cwx-example-")
	defer os.RemoveAll(home)
	work := filepath.Join(home, "work")
	_ = os.MkdirAll(work, 0o755)
	_ = os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hello\n"), 0o644)

	ctx := context.Background()
	policy := core.ApproverFunc(func(_ context.Context, card core.ApprovalCard) (core.Decision, error) {
		fmt.Println("asked:", card.Title)
		if card.Forced || card.ToolKey == "" {
			return core.AllowOnce, nil
		}
		return core.AllowToolForSession, nil // any input to this tool of this plugin build
	})
	m, err := core.Open(ctx, core.Options{Home: home, Approver: policy})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close(ctx)
	if err := m.Reconcile(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range m.Tools() {
		fmt.Println(t.Name, t.Origin)
	}
	res, err := m.CallTool(ctx, "read_file", []byte(`{"file_path":"notes.txt"}`), core.CallOptions{Workspace: work})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", res.Text())
	// shell is forced: the policy is asked on every call, and no session grant covers it.
	res, err = m.CallTool(ctx, "shell", []byte(`{"command":"echo hi"}`), core.CallOptions{Workspace: work})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", res.Text())
	_, err = m.CallTool(ctx, "no_such_tool", []byte(`{}`), core.CallOptions{Workspace: work})
	fmt.Println(errors.Is(err, core.ErrUnknownTool))
	// Output:
	// edit_file native
	// file_search native
	// grep_files native
	// list_dir native
	// read_file native
	// shell native
	// write_file native
	// "     1\thello\n"
	// asked: Native tool `shell` (runs in cwx with your permissions)
	// "hi\n"
	// true
}
