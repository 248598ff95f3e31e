package registry

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/protocol"
)

// Limits of pre-execute hooks (ARCHITECTURE.md, “Registry rules”).
const (
	MaxHooksPerOwner   = 128
	MaxHooksPerHost    = 1024
	MaxHookDescription = 1024
)

// HookEvent is the one event a hook may be registered for.
const HookEvent = "tools/pre-execute"

// HookInfo describes a live pre-execute hook.
type HookInfo struct {
	PluginID string
	Event    string
	Handle   uint64
	Owner    protocol.OwnerRef
	Tier     protocol.Tier
	Host     protocol.HostKey
}

// checkHook applies the hook rules that need no lock: spec.name is the event
// (HookEvent); the description is optional, one line, at most MaxHookDescription bytes.
func checkHook(s protocol.RegisterSpec) (*reg, *Refusal) {
	const kind = "hook"
	if s.Name != HookEvent {
		return nil, refuse(kind, s.Name, ErrInvalidSpec, "hook event %q is not one cwx emits; the only event is %q", s.Name, HookEvent)
	}
	desc := strings.TrimSpace(s.Description)
	switch {
	case len(desc) > MaxHookDescription:
		return nil, refuse(kind, s.Name, ErrInvalidSpec, "description of hook `%s` is %d bytes; the limit is %d", s.Name, len(desc), MaxHookDescription)
	case desc != "" && !singleLine(desc):
		return nil, refuse(kind, s.Name, ErrInvalidSpec, "description of hook `%s` must be one line without control characters or bidi controls", s.Name)
	}
	return &reg{kind: protocol.KindHook, name: s.Name, key: s.Name, desc: desc}, nil
}

// placeHookLocked enters a hook for o against the caps. Hooks have no names to clash:
// every registration is one more hook, in registration (handle) order.
//
// +checklocks:r.mu
func (r *Registry) placeHookLocked(o *owner, g *reg) (uint64, error) {
	const kind = "hook"
	own, host := 0, r.countLocked(o.host).hooks
	for _, h := range o.regs {
		if h.kind == protocol.KindHook {
			own++
		}
	}
	if own >= MaxHooksPerOwner {
		return 0, refuse(kind, g.name, ErrLimit, "plugin `%s` already has %d hooks, the limit per plugin", o.ref.PluginID, MaxHooksPerOwner)
	}
	if host >= MaxHooksPerHost {
		return 0, refuse(kind, g.name, ErrLimit, "%s already has %d hooks, the limit per host", o.host.Describe(), MaxHooksPerHost)
	}
	r.handle++
	g.handle, g.owner = r.handle, o
	r.addLocked(g)
	return g.handle, nil
}

// Hooks lists the hooks of Active owners in the stable order hooks are folded in: by
// plugin id, then registration order (handle). With no hook registered it costs one look at
// each host's counter, so every gated call may ask.
func (r *Registry) Hooks() []HookInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []HookInfo
	if !r.anyHooksLocked() {
		return nil
	}
	for _, g := range r.byHandle {
		if g.kind == protocol.KindHook && g.owner.state == Active {
			out = append(out, HookInfo{PluginID: g.owner.ref.PluginID, Event: g.name, Handle: g.handle, Owner: g.owner.ref, Tier: g.owner.host.Tier, Host: g.owner.host})
		}
	}
	slices.SortFunc(out, func(a, b HookInfo) int {
		if c := strings.Compare(a.PluginID, b.PluginID); c != 0 {
			return c
		}
		return cmp.Compare(a.Handle, b.Handle)
	})
	return out
}

// anyHooksLocked reports whether any host holds a hook.
//
// +checklocksread:r.mu
func (r *Registry) anyHooksLocked() bool {
	for _, c := range r.perHost {
		if c.hooks > 0 {
			return true
		}
	}
	return false
}
