package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// fakeHost is a hand-written host incarnation: on ext/activate it registers the tools the
// test configured through the Manager's own request handler, like the JS host does.
type fakeHost struct {
	gen  uint64
	tier *fakeTier
	dead bool // guarded by tier.mu
}

func (h *fakeHost) Generation() uint64 { return h.gen }

func (h *fakeHost) Activate(ctx context.Context, p protocol.ActivateParams, o rpc.CallOpts) (*protocol.Message, error) {
	return h.Call(ctx, protocol.MethodExtActivate, p, o)
}

func (h *fakeHost) Call(ctx context.Context, method string, params any, _ rpc.CallOpts) (*protocol.Message, error) {
	ft := h.tier
	ft.mu.Lock()
	ft.sent = append(ft.sent, method)
	dead := h.dead
	ft.mu.Unlock()
	if dead {
		return nil, fmt.Errorf("%w: fake host %d is gone", rpc.ErrHostExited, h.gen)
	}
	switch method {
	case protocol.MethodExtActivate:
		p := params.(protocol.ActivateParams)
		ft.mu.Lock()
		ft.activated = append(ft.activated, p.Owner)
		gateCh, tools, fail := ft.activateGate[p.Owner.PluginID], ft.tools[p.Owner.PluginID], ft.activateFail[p.Owner.PluginID]
		ft.mu.Unlock()
		if gateCh != nil {
			select {
			case <-gateCh:
			case <-ctx.Done():
				return nil, fmt.Errorf("%w: %w", rpc.ErrCancelled, context.Cause(ctx))
			}
		}
		for _, name := range tools {
			reg := &protocol.RegisterParams{Owner: p.Owner, Kind: protocol.KindTool, Spec: protocol.RegisterSpec{Name: name, Description: "fake",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}}
			out, err := ft.m.own.HandleRequest(ctx, ft.t, h.gen, &protocol.Message{Method: protocol.MethodRegistryRegister, Value: reg})
			if r, _ := out.(protocol.RegisterResult); err != nil || r.Handle == nil {
				return nil, fmt.Errorf("fake host: register %s: %+v %v", name, r, err)
			}
		}
		ft.mu.Lock()
		withHook := ft.hooks[p.Owner.PluginID]
		ft.mu.Unlock()
		if withHook {
			reg := &protocol.RegisterParams{Owner: p.Owner, Kind: protocol.KindHook, Spec: protocol.RegisterSpec{Name: registry.HookEvent}}
			out, err := ft.m.own.HandleRequest(ctx, ft.t, h.gen, &protocol.Message{Method: protocol.MethodRegistryRegister, Value: reg})
			if r, _ := out.(protocol.RegisterResult); err != nil || r.Handle == nil {
				return nil, fmt.Errorf("fake host: register a hook: %+v %v", r, err)
			}
		}
		if fail != "" {
			return &protocol.Message{Value: &protocol.ActivateResult{Status: protocol.ActivateFailed, Diagnostic: fail}}, nil
		}
		return &protocol.Message{Value: &protocol.ActivateResult{Status: protocol.ActivateOK, Tools: tools}}, nil
	case protocol.MethodHookEvaluate:
		return &protocol.Message{Value: &protocol.HookVerdict{Kind: protocol.HookAbstain}}, nil
	case protocol.MethodExtDeactivate:
		ft.mu.Lock()
		res := ft.deactivate
		ft.mu.Unlock()
		return &protocol.Message{Value: &res}, nil
	case protocol.MethodToolCall:
		p := params.(protocol.ToolCallParams)
		ft.mu.Lock()
		ft.calls = append(ft.calls, p)
		block := ft.block
		ft.mu.Unlock()
		if block {
			<-ctx.Done()
			return nil, fmt.Errorf("%w: %w", rpc.ErrCancelled, context.Cause(ctx))
		}
		return &protocol.Message{Value: &protocol.ToolResult{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: "ok"}}}}, nil
	}
	return nil, fmt.Errorf("fake host: unexpected %s", method)
}

// fakeTier stands in for a supervisor.TierRuntime: Ensure "starts" an incarnation and,
// like the supervisor, hands it to the owner layer before returning it.
type fakeTier struct {
	m *Manager
	t protocol.HostKey

	mu           sync.Mutex
	h            *fakeHost
	gen          uint64
	dirty        int
	tools        map[string][]string // plugin id → tools registered on activation
	activateFail map[string]string
	activateGate map[string]chan struct{}
	hooks        map[string]bool  // plugin id → registers a pre-execute hook on activation
	state        supervisor.State // what Status reports; "" is ready
	deactivate   protocol.DeactivateResult
	block        bool
	sent         []string
	activated    []protocol.OwnerRef
	calls        []protocol.ToolCallParams
	crashes      int // the ends kill reported that the supervisor's budget would count
}

func (f *fakeTier) Ensure(ctx context.Context) (owners.Host, error) {
	f.mu.Lock()
	h := f.h
	f.mu.Unlock()
	if h != nil {
		return h, nil
	}
	return f.start(ctx), nil
}

func (f *fakeTier) start(ctx context.Context) *fakeHost {
	f.mu.Lock()
	f.gen++
	h := &fakeHost{gen: f.gen, tier: f}
	f.h = h
	f.mu.Unlock()
	f.m.own.Ready(ctx, f.t, h)
	return h
}

// kill ends the current incarnation like a crash: its calls fail HostExited and the owner
// layer is told, naming the owner that was activating.
func (f *fakeTier) kill(activating *protocol.OwnerRef) {
	f.mu.Lock()
	h := f.h
	h.dead, f.h = true, nil
	f.mu.Unlock()
	info := supervisor.ExitInfo{Reason: errors.New("killed"), Activating: activating}
	if info.Crash() { // as the supervisor's budget counts it
		f.mu.Lock()
		f.crashes++
		f.mu.Unlock()
	}
	f.m.own.HostExited(f.t, h.gen, info)
}

func (f *fakeTier) ReportDirtyTeardown()        { f.mu.Lock(); f.dirty++; f.mu.Unlock() }
func (f *fakeTier) Retry()                      {}
func (f *fakeTier) Stop() supervisor.StopReport { return supervisor.StopReport{} }
func (f *fakeTier) Status() supervisor.TierStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.state
	if st == "" {
		st = supervisor.StateReady
	}
	return supervisor.TierStatus{Tier: f.t.Tier, Group: f.t.Group, State: st, Generation: f.gen, Crashes: f.crashes}
}

func (f *fakeTier) activations(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, o := range f.activated {
		if o.PluginID == id {
			n++
		}
	}
	return n
}

// newFake returns a Manager whose plugin tier is a fakeTier, with the fixture plugins
// installed, trusted and enabled (no runtime is ever started).
func newFake(t *testing.T, tools map[string][]string, fixtures ...string) (*Manager, *fakeTier, *env) {
	t.Helper()
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	e.install(fixtures...)
	m := e.open(func(o *Options) { o.PollInterval = -1 })
	ft := &fakeTier{m: m, t: protocol.SharedHost(protocol.TierPlugin), tools: tools, activateFail: map[string]string{}, activateGate: map[string]chan struct{}{},
		deactivate: protocol.DeactivateResult{Disposed: true, Leaked: []string{}}}
	setTier(m, func(protocol.HostKey) (owners.Tier, error) { return ft, nil })
	return m, ft, e
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventually(t, 5*time.Second, what, cond)
}
