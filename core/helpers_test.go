package core

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
)

// sentCounter counts the requests the Manager sends to hosts, by method.
type sentCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *sentCounter) wrap(h owners.Host) owners.Host { return countedHost{h, c} }

func (c *sentCounter) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

type countedHost struct {
	owners.Host
	c *sentCounter
}

func (h countedHost) Call(ctx context.Context, method string, params any, o rpc.CallOpts) (*protocol.Message, error) {
	h.c.add(method)
	return h.Host.Call(ctx, method, params, o)
}

func (h countedHost) Activate(ctx context.Context, p protocol.ActivateParams, o rpc.CallOpts) (*protocol.Message, error) {
	h.c.add(protocol.MethodExtActivate)
	return h.Host.Activate(ctx, p, o)
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
	setWrap(m, c.wrap)
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
	info, _ := m.Owner(id)
	return info.InFlight
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

// seams are a test Manager's owner-layer seams (testSeams): a tier factory in place of the
// supervisor's, and a wrapper of every host the layer activates owners on.
type seams struct {
	mu   sync.Mutex
	tier func(t protocol.HostKey, real func(protocol.HostKey) (owners.Tier, error)) (owners.Tier, error)
	wrap func(owners.Host) owners.Host
}

var seamOf sync.Map // *Manager → *seams

func init() {
	testSeams = func(m *Manager, oo *owners.Options) {
		s := &seams{}
		seamOf.Store(m, s)
		oo.NewTier = func(t protocol.HostKey, real func(protocol.HostKey) (owners.Tier, error)) (owners.Tier, error) {
			s.mu.Lock()
			f := s.tier
			s.mu.Unlock()
			if f != nil {
				return f(t, real)
			}
			return real(t)
		}
		oo.WrapHost = func(h owners.Host) owners.Host {
			s.mu.Lock()
			w := s.wrap
			s.mu.Unlock()
			if w != nil {
				return w(h)
			}
			return h
		}
	}
}

func seamsOf(m *Manager) *seams {
	v, _ := seamOf.Load(m)
	return v.(*seams)
}

// setTier makes f create m's tiers from now on (a fake in place of the supervisor).
func setTier(m *Manager, f func(protocol.HostKey) (owners.Tier, error)) {
	setTierAround(m, func(t protocol.HostKey, _ func(protocol.HostKey) (owners.Tier, error)) (owners.Tier, error) {
		return f(t)
	})
}

// setTierAround makes f create m's tiers from now on, given the real factory.
func setTierAround(m *Manager, f func(t protocol.HostKey, real func(protocol.HostKey) (owners.Tier, error)) (owners.Tier, error)) {
	s := seamsOf(m)
	s.mu.Lock()
	s.tier = f
	s.mu.Unlock()
}

// setWrap makes w wrap every host m activates owners on from now on.
func setWrap(m *Manager, w func(owners.Host) owners.Host) {
	s := seamsOf(m)
	s.mu.Lock()
	s.wrap = w
	s.mu.Unlock()
}

// The shared hosts of the two tiers.
var (
	pluginHost  = protocol.SharedHost(protocol.TierPlugin)
	builtinHost = protocol.SharedHost(protocol.TierBuiltin)
)
