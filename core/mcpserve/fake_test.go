package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/cwx-dev/cwx/core"
)

// fakeManager is a Manager whose catalog the test sets and whose calls a function answers.
type fakeManager struct {
	mu    sync.Mutex
	tools []core.ToolInfo
	cmds  []core.CommandInfo
	gen   uint64
	subs  map[chan core.Change]bool
	call  func(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error)
	run   func(ctx context.Context, name, input string) (core.CommandResult, error)
}

func newFake() *fakeManager { return &fakeManager{subs: map[chan core.Change]bool{}} }

func (f *fakeManager) Tools() []core.ToolInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]core.ToolInfo(nil), f.tools...)
}

func (f *fakeManager) Commands() []core.CommandInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]core.CommandInfo(nil), f.cmds...)
}

func (f *fakeManager) CallTool(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
	for _, t := range f.Tools() {
		if t.Name == name {
			return f.call(ctx, name, input, o)
		}
	}
	return core.ToolResult{}, &core.NotLiveError{Kind: "tool", Name: name}
}

func (f *fakeManager) RunCommand(ctx context.Context, name, input string, _ core.CallOptions) (core.CommandResult, error) {
	return f.run(ctx, name, input)
}

func (f *fakeManager) Changes(ctx context.Context) <-chan core.Change {
	c := make(chan core.Change, 1)
	f.mu.Lock()
	f.subs[c] = true
	f.mu.Unlock()
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.subs, c)
		close(c)
	})
	return c
}

// set replaces the catalog and reports one change, as the registry does.
func (f *fakeManager) set(tools []core.ToolInfo, cmds []core.CommandInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tools, f.cmds = tools, cmds
	f.gen++
	for c := range f.subs {
		select {
		case <-c:
		default:
		}
		c <- core.Change{Generation: f.gen}
	}
}

// tool is an extension tool of plugin p with an object schema.
func tool(name, p string) core.ToolInfo {
	return core.ToolInfo{Name: name, PluginID: p, Origin: "extension:" + p, Description: "does " + name,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}
}

// approve asks o.Approver as the gate does: its error or a denial is ErrDenied.
func approve(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) error {
	card := core.ApprovalCard{Key: "ext:p@c:" + name + ":" + string(input), PluginID: "p", Tool: name,
		Title: fmt.Sprintf("Extension tool `%s` from plugin `p`", name), Input: string(input)}
	d, err := o.Approver.Approve(ctx, card)
	if err != nil {
		return fmt.Errorf("tool %q: %w: %w", name, core.ErrDenied, err)
	}
	if d == 0 {
		return fmt.Errorf("tool %q: %w: not approved", name, core.ErrDenied)
	}
	return nil
}

// MCP is nil: the fake has no MCP servers (a test gives the Server a fakeGateway instead).
func (f *fakeManager) MCP() *core.MCPServers { return nil }
