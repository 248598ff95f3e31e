package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/cwx-dev/cwx/core/protocol"
)

// ToolInfo describes a live extension tool.
type ToolInfo struct {
	Name        string
	PluginID    string
	Origin      string // "extension:<plugin id>"
	Description string
	InputSchema json.RawMessage
	Handle      uint64
	Owner       protocol.OwnerRef
	Tier        protocol.Tier
	Host        protocol.HostKey
}

// CommandInfo describes a live extension command.
type CommandInfo struct {
	Name         string
	PluginID     string
	Origin       string
	Description  string
	ArgumentHint string
	Handle       uint64
	Owner        protocol.OwnerRef
	Tier         protocol.Tier
	Host         protocol.HostKey
}

func (g *reg) toolInfo() ToolInfo {
	return ToolInfo{
		Name: g.name, PluginID: g.owner.ref.PluginID, Origin: "extension:" + g.owner.ref.PluginID,
		Description: g.desc, InputSchema: slices.Clone(g.schema), Handle: g.handle, Owner: g.owner.ref, Tier: g.owner.host.Tier, Host: g.owner.host,
	}
}

func (g *reg) commandInfo() CommandInfo {
	return CommandInfo{
		Name: g.name, PluginID: g.owner.ref.PluginID, Origin: "extension:" + g.owner.ref.PluginID,
		Description: g.desc, ArgumentHint: g.hint, Handle: g.handle, Owner: g.owner.ref, Tier: g.owner.host.Tier, Host: g.owner.host,
	}
}

// Tools lists the tools of Active owners, sorted by name.
func (r *Registry) Tools() []ToolInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]ToolInfo, 0, len(r.tools))
	for _, g := range r.tools {
		if g.owner.state == Active {
			out = append(out, g.toolInfo())
		}
	}
	slices.SortFunc(out, func(a, b ToolInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Commands lists the commands of Active owners, sorted by name.
func (r *Registry) Commands() []CommandInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]CommandInfo, 0, len(r.commands))
	for _, g := range r.commands {
		if g.owner.state == Active {
			out = append(out, g.commandInfo())
		}
	}
	slices.SortFunc(out, func(a, b CommandInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Tool finds the live tool of an Active owner by its exact name.
func (r *Registry) Tool(name string) (ToolInfo, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := r.tools[Fold(name)]
	if g == nil || g.name != name || g.owner.state != Active {
		return ToolInfo{}, false
	}
	return g.toolInfo(), true
}

// Command finds the live command of an Active owner by name.
func (r *Registry) Command(name string) (CommandInfo, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := r.commands[Fold(name)]
	if g == nil || g.name != name || g.owner.state != Active {
		return CommandInfo{}, false
	}
	return g.commandInfo(), true
}

// Target is what one call needs of a live tool or command, taken in a single look-up: the
// handle, its owner and tier, how many other owners of the tier are Active (the approval
// card says so), and for a tool the input schema compiled at registration. It is a
// snapshot: the owner may end after it was taken, and the caller re-checks that only where
// the race matters, at send time, against its own record of the owner.
type Target struct {
	Name   string
	Kind   protocol.RegisterKind
	Handle uint64
	Owner  protocol.OwnerRef
	Tier   protocol.Tier
	Host   protocol.HostKey
	Others int // Active owners of Host other than Owner
	schema *jsonschema.Schema
}

// ValidateInput validates input against the tool's compiled input schema: nil, or an
// *InputError (ErrInvalidInput, at most MaxViolations listed). A command target has no
// schema and fails with ErrUnknownTool.
func (t Target) ValidateInput(input json.RawMessage) error {
	if t.schema == nil {
		return fmt.Errorf("%w: %s %q is not a tool", ErrUnknownTool, t.Kind, t.Name)
	}
	return validate(t.Name, t.schema, input)
}

// LookupTool takes the Target of the live tool of an Active owner by its exact name.
func (r *Registry) LookupTool(name string) (Target, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := r.tools[Fold(name)]
	if g == nil || g.name != name {
		return Target{}, false
	}
	return r.targetLocked(g)
}

// LookupCommand takes the Target of the live command of an Active owner by name.
func (r *Registry) LookupCommand(name string) (Target, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := r.commands[Fold(name)]
	if g == nil || g.name != name {
		return Target{}, false
	}
	return r.targetLocked(g)
}

// +checklocksread:r.mu
func (r *Registry) targetLocked(g *reg) (Target, bool) {
	o := g.owner
	if o.state != Active {
		return Target{}, false
	}
	return Target{Name: g.name, Kind: g.kind, Handle: g.handle, Owner: o.ref, Tier: o.host.Tier, Host: o.host,
		Others: r.countOf(o.host).active - 1, schema: g.compiled}, true
}

// Live reports whether handle is still registered to exactly ref and ref is Active:
// the in-memory check of the call path.
func (r *Registry) Live(handle uint64, ref protocol.OwnerRef) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := r.byHandle[handle]
	return g != nil && g.owner.state == Active && g.owner.ref == ref
}

// OwnerOf returns the owner ref a live handle belongs to.
func (r *Registry) OwnerOf(handle uint64) (protocol.OwnerRef, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g := r.byHandle[handle]
	if g == nil {
		return protocol.OwnerRef{}, false
	}
	return g.owner.ref, true
}

// ValidateInput validates a call's input against the input schema compiled when the
// tool with that handle was registered. It returns ErrUnknownTool for a handle that is
// not a live tool, and an *InputError (ErrInvalidInput, at most MaxViolations listed)
// for input that does not match.
func (r *Registry) ValidateInput(handle uint64, input json.RawMessage) error {
	r.mu.RLock()
	g := r.byHandle[handle]
	r.mu.RUnlock()
	if g == nil || g.kind != protocol.KindTool {
		return fmt.Errorf("%w: handle %d is not a live tool", ErrUnknownTool, handle)
	}
	return Target{Name: g.name, Kind: g.kind, schema: g.compiled}.ValidateInput(input)
}
