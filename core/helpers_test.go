package core

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
)

// sentCounter counts the requests the Manager sends to hosts, by method.
type sentCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *sentCounter) wrap(h host) host { return countedHost{h, c} }

func (c *sentCounter) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

type countedHost struct {
	host
	c *sentCounter
}

func (h countedHost) Call(ctx context.Context, method string, params any, o rpc.CallOpts) (*protocol.Message, error) {
	h.c.add(method)
	return h.host.Call(ctx, method, params, o)
}

func (h countedHost) Activate(ctx context.Context, p protocol.ActivateParams, o rpc.CallOpts) (*protocol.Message, error) {
	h.c.add(protocol.MethodExtActivate)
	return h.host.Activate(ctx, p, o)
}

func (c *sentCounter) add(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[method]++
}

// countSent makes m count what it sends to hosts from now on.
func countSent(m *Manager) *sentCounter {
	c := &sentCounter{}
	m.mu.Lock()
	m.wrapHost = c.wrap
	m.mu.Unlock()
	return c
}

// approver records the cards it is shown and answers with d.
type approver struct {
	mu    sync.Mutex
	cards []gate.Card
	d     gate.Decision
}

func (a *approver) Approve(_ context.Context, c gate.Card) (gate.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cards = append(a.cards, c)
	return a.d, nil
}

func (a *approver) asked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.cards)
}

func ownerOf(t testing.TB, m *Manager, id string) registry.Owner {
	t.Helper()
	o, ok := m.reg.Owner(id)
	if !ok {
		t.Fatalf("no owner for %s", id)
	}
	return o
}

// hasTool reports whether name is a live extension tool (natives are always listed).
func hasTool(m *Manager, name string) bool {
	for _, t := range m.Tools() {
		if t.Name == name && t.Origin != OriginNative {
			return true
		}
	}
	return false
}

func inflight(m *Manager, id string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o := m.owners[id]; o != nil {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.inflight
	}
	return 0
}

func input(s string) json.RawMessage { return json.RawMessage(s) }

func diagnostics(t testing.TB, e *env, m *Manager, id string) []string {
	t.Helper()
	if err := m.FlushDiagnostics(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, err := e.store.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range r.Diagnostics {
		out = append(out, d.Kind+": "+d.Message)
	}
	return out
}
