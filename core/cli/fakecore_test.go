package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// fakeCore is a hand-written liveCore: registrations, answers and tier state are set by the
// test; every call is recorded.
type fakeCore struct {
	mu        sync.Mutex
	tools     []core.ToolInfo
	commands  []core.CommandInfo
	sections  []core.PromptSection
	reconcile func(ctx context.Context, f *fakeCore) error
	call      func(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error)
	run       func(ctx context.Context, name, raw string, o core.CallOptions) (core.CommandResult, error)
	tiers     map[protocol.Tier]*core.TierStatus
	own       []core.TierStatus // plugins' own hosts, listed after the tiers
	store     *plugins.Store
	opened    bool
	closed    bool
	log       []string // "call NAME INPUT", "run NAME RAW", "kill TIER", "retry TIER", "reconcile"
	opts      []core.CallOptions
	onKill    func(s *core.TierStatus) // changes the restarted tier after KillRuntime
	subs      []chan core.Change       // Changes' subscribers, told by setTools
}

func newFakeCore() *fakeCore {
	return &fakeCore{tiers: map[protocol.Tier]*core.TierStatus{
		protocol.TierPlugin:  {TierStatus: supervisor.TierStatus{Tier: protocol.TierPlugin, State: supervisor.StateIdle}},
		protocol.TierBuiltin: {TierStatus: supervisor.TierStatus{Tier: protocol.TierBuiltin, State: supervisor.StateIdle}},
	}}
}

// useFake makes the CLI open f and checks, at the end of the test, that a command that
// opened it closed it.
func useFake(t *testing.T, f *fakeCore) {
	t.Helper()
	old, oldPSS := openCore, processPSS
	processPSS = func(pid int) float64 { return float64(pid%1000) / 100 } // the fake's pids are no processes
	openCore = func(context.Context, core.Options) (liveCore, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.opened = true
		return f, nil
	}
	t.Cleanup(func() {
		openCore, processPSS = old, oldPSS
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.opened && !f.closed {
			t.Error("the command did not close the Manager")
		}
	})
}

func (f *fakeCore) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, s)
}

func (f *fakeCore) Reconcile(ctx context.Context) error {
	f.record("reconcile")
	if f.reconcile != nil {
		return f.reconcile(ctx, f)
	}
	return nil
}

func (f *fakeCore) Tools() []core.ToolInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]core.ToolInfo(nil), f.tools...)
}

func (f *fakeCore) PromptSections() []core.PromptSection {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]core.PromptSection(nil), f.sections...)
}

func (f *fakeCore) Commands() []core.CommandInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]core.CommandInfo(nil), f.commands...)
}

// logged reports whether entry was recorded.
func (f *fakeCore) logged(entry string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.log {
		if l == entry {
			return true
		}
	}
	return false
}

// setTools replaces the live tools and tells Changes' subscribers, as the registry does.
func (f *fakeCore) setTools(tools ...core.ToolInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tools = tools
	for _, c := range f.subs {
		select {
		case c <- core.Change{}:
		default: // one pending change stands for many
		}
	}
}

// Changes is core.Manager.Changes for the fake: a value after each setTools. The channel is
// never closed (the fake's catalog ends with the test).
func (f *fakeCore) Changes(context.Context) <-chan core.Change {
	c := make(chan core.Change, 1)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs = append(f.subs, c)
	return c
}

func (f *fakeCore) CallTool(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
	f.record("call " + name + " " + string(input))
	f.mu.Lock()
	f.opts = append(f.opts, o)
	f.mu.Unlock()
	if f.call == nil {
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: "ok"}}}, nil
	}
	return f.call(ctx, name, input, o)
}

func (f *fakeCore) RunCommand(ctx context.Context, name, raw string, o core.CallOptions) (core.CommandResult, error) {
	f.record("run " + name + " " + raw)
	if f.run == nil {
		return core.CommandResult{Kind: "success", Text: "done"}, nil
	}
	return f.run(ctx, name, raw, o)
}

func (f *fakeCore) Status() []core.TierStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]core.TierStatus{*f.tiers[protocol.TierPlugin], *f.tiers[protocol.TierBuiltin]}, f.own...)
}

// HostAt reports a tier's shared host (the fake has no plugins' own hosts).
func (f *fakeCore) HostAt(k protocol.HostKey) core.HostInfo {
	t := k.Tier
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.tiers[t]
	return core.HostInfo{Tier: t, State: s.State, Generation: s.Generation, RuntimePID: s.RuntimePID, Crashes: s.Crashes}
}

// setTier changes one tier's state.
func (f *fakeCore) setTier(t protocol.Tier, change func(s *core.TierStatus)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f.tiers[t])
}

// KillRuntime simulates the supervisor: the runtime dies and a new incarnation with a new
// pid and generation is ready, its owners replayed.
func (f *fakeCore) KillHost(k protocol.HostKey) error {
	t := k.Tier
	f.record("kill " + string(t))
	if f.HostAt(k).RuntimePID <= 0 {
		return fmt.Errorf("%w: the %s tier has no running runtime", core.ErrNotAvailable, t)
	}
	f.setTier(t, func(s *core.TierStatus) {
		s.RuntimePID += 1000
		s.Generation++
		s.Crashes++
		if f.onKill != nil {
			f.onKill(s)
		}
	})
	return nil
}

func (f *fakeCore) Retry(t protocol.Tier) { f.record("retry " + string(t)) }

func (f *fakeCore) Plugins() *plugins.Store { return f.store }

func (f *fakeCore) Close(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}

// readyPlugin marks the plugin tier ready under node with a pid and generation.
func (f *fakeCore) readyPlugin(pid int, gen uint64, owners int) {
	f.setTier(protocol.TierPlugin, func(s *core.TierStatus) {
		s.State, s.Runtime, s.RuntimeVersion, s.RuntimePID, s.Generation, s.Owners = supervisor.StateReady, "node", "22.23.5", pid, gen, owners
	})
}

// demoTools are the registrations most tests use.
func demoTools() []core.ToolInfo {
	return []core.ToolInfo{
		{Name: "hello_greet", PluginID: "hello-extension", Origin: "extension:hello-extension", Description: "Greet someone by name.", InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)},
		{Name: "word_stats", PluginID: "@cwx-examples/dsh-word-stats", Origin: "extension:@cwx-examples/dsh-word-stats", Description: "Count the words of a text.\x1b[31m red\x1b[0m", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
}

func demoCommands() []core.CommandInfo {
	return []core.CommandInfo{
		{Name: "hello", PluginID: "hello-extension", Origin: "extension:hello-extension", Description: "Say hello to someone.", ArgumentHint: "[name]"},
		{Name: "wordstats", PluginID: "@cwx-examples/dsh-word-stats", Origin: "extension:@cwx-examples/dsh-word-stats", Description: "Count the words after the command."},
	}
}

// withTerminal makes isTerminal answer yes for every stream during the test.
func withTerminal(t *testing.T) {
	t.Helper()
	old := isTerminal
	isTerminal = func(any) bool { return true }
	t.Cleanup(func() { isTerminal = old })
}
