package registry

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Register admits or refuses a registry/register request from the host of tier. It
// returns the new handle, or a *Refusal whose text is what the host is answered.
func (r *Registry) Register(host protocol.HostKey, p *protocol.RegisterParams) (uint64, error) {
	handle, _, err := r.Admit(host, p)
	return handle, err
}

// Admit is Register, also returning the owner it evicted, if any: an owner still
// activating that held the name without a claim, outranked by this registration
// (ARCHITECTURE.md, “Registry rules”). The evicted owner is Failed, its registrations
// dropped, with the reason "`<name>` belongs to plugin `<id>`"; the caller ends it.
func (r *Registry) Admit(host protocol.HostKey, p *protocol.RegisterParams) (uint64, *Owner, error) {
	kind, name := string(p.Kind), p.Spec.Name
	if err := r.Check(p.Owner, host); err != nil {
		return 0, nil, refuse(kind, name, ErrStaleOwner, "stale or unknown owner")
	}
	var g *reg
	var ref *Refusal
	switch p.Kind {
	case protocol.KindTool:
		g, ref = r.checkTool(p.Spec)
	case protocol.KindCommand:
		g, ref = r.checkCommand(p.Spec)
	case protocol.KindPromptSection:
		g, ref = checkSection(p.Spec)
	case protocol.KindHook:
		g, ref = checkHook(p.Spec)
	default:
		return 0, nil, refuse(kind, name, ErrUnsupportedKind, "%s is not supported yet", kind)
	}
	if ref != nil {
		return 0, nil, ref
	}
	return r.insert(host, p.Owner, g)
}

// Result turns Register's outcome into the wire answer. A non-refusal error (none today)
// is answered as a refusal too, so the host always hears why.
func Result(handle uint64, err error) protocol.RegisterResult {
	if err != nil {
		msg := err.Error()
		return protocol.RegisterResult{Refused: &msg}
	}
	return protocol.RegisterResult{Handle: &handle}
}

// checkTool applies the rules that need no lock, compiling the schema.
func (r *Registry) checkTool(s protocol.RegisterSpec) (*reg, *Refusal) {
	const kind = "tool"
	name := s.Name
	if !toolNameRE().MatchString(name) {
		return nil, refuse(kind, name, ErrInvalidSpec, "tool name %q must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$ (a letter, then up to 63 letters, digits, _ or -)", name)
	}
	if why, cause := r.names.reservedTool(name); why != "" {
		return nil, refuse(kind, name, cause, "%s", why)
	}
	if n := len(s.Description); n > MaxToolDescription {
		return nil, refuse(kind, name, ErrInvalidSpec, "description of tool `%s` is %d bytes; the limit is %d", name, n, MaxToolDescription)
	}
	if !utf8.ValidString(s.Description) {
		return nil, refuse(kind, name, ErrInvalidSpec, "description of tool `%s` is not valid UTF-8", name)
	}
	if err := inert.Check(s.Description); err != nil { // plugin text stays inert (package inert)
		return nil, refuse(kind, name, ErrInvalidSpec, "description of tool `%s` %v", name, err)
	}
	compiled, why := r.schemas.compile(name, s.InputSchema)
	if why != "" {
		return nil, refuse(kind, name, ErrInvalidSpec, "%s", why)
	}
	return &reg{
		kind: protocol.KindTool, name: name, key: Fold(name), desc: s.Description,
		schema: append([]byte(nil), s.InputSchema...), compiled: compiled,
	}, nil
}

// checkCommand applies the command rules that need no lock.
func (r *Registry) checkCommand(s protocol.RegisterSpec) (*reg, *Refusal) {
	const kind = "command"
	name := s.Name
	if !commandNameRE().MatchString(name) {
		return nil, refuse(kind, name, ErrInvalidSpec, "command name %q must match ^[a-z][a-z0-9_-]{0,63}$ (a lower-case letter, then up to 63 lower-case letters, digits, _ or -)", name)
	}
	if r.names.commands[Fold(name)] {
		return nil, refuse(kind, name, ErrReservedName, "command name `%s` is a built-in command; choose another name", name)
	}
	desc := strings.TrimSpace(s.Description)
	switch {
	case desc == "":
		return nil, refuse(kind, name, ErrInvalidSpec, "command `%s` needs a non-empty description", name)
	case len(desc) > MaxCommandDescription:
		return nil, refuse(kind, name, ErrInvalidSpec, "description of command `%s` is %d bytes; the limit is %d", name, len(desc), MaxCommandDescription)
	case !singleLine(desc):
		return nil, refuse(kind, name, ErrInvalidSpec, "description of command `%s` must be one line without control characters or bidi controls", name)
	}
	hint := ""
	if s.ArgumentHint != nil {
		hint = *s.ArgumentHint
		switch {
		case hint == "":
			return nil, refuse(kind, name, ErrInvalidSpec, "argument hint of command `%s` is empty; omit it instead", name)
		case len(hint) > MaxArgumentHint:
			return nil, refuse(kind, name, ErrInvalidSpec, "argument hint of command `%s` is %d bytes; the limit is %d", name, len(hint), MaxArgumentHint)
		case !singleLine(hint):
			return nil, refuse(kind, name, ErrInvalidSpec, "argument hint of command `%s` must be one line without control characters or bidi controls", name)
		}
	}
	return &reg{kind: protocol.KindCommand, name: name, key: Fold(name), desc: desc, hint: hint}, nil
}

// singleLine reports valid UTF-8 with no control characters (newlines included) and none of
// the bidi and other characters package inert refuses.
func singleLine(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if unicode.IsControl(c) || inert.Refused(c) {
			return false
		}
	}
	return true
}

// insert checks the owner again, the claims, the clash and the caps, then admits g.
func (r *Registry) insert(host protocol.HostKey, ref protocol.OwnerRef, g *reg) (uint64, *Owner, error) {
	kind := string(g.kind)
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.lookupLocked(ref, host)
	if err != nil {
		return 0, nil, refuse(kind, g.name, ErrStaleOwner, "stale or unknown owner")
	}
	if g.kind == protocol.KindPromptSection { // owner-scoped ids: no claims, no clash
		handle, err := r.placeSectionLocked(o, g)
		return handle, nil, err
	}
	if g.kind == protocol.KindHook { // no name to claim or clash over
		handle, err := r.placeHookLocked(o, g)
		return handle, nil, err
	}
	evicted, refusal := r.contendLocked(o, g)
	if refusal != nil {
		return 0, nil, refusal
	}
	handle, err := r.placeLocked(host, o, g)
	if err != nil {
		return 0, nil, err
	}
	return handle, evicted, nil
}

// contendLocked decides who a name belongs to when o registers g (ARCHITECTURE.md,
// “Registry rules”): the best-ranked claimant, when any enabled plugin claims it; else
// an Active holder, which is never failed for a newcomer; else, between two owners still
// activating, the earlier first trust (then the smaller id). An outranked activating
// holder is Failed and returned.
//
// +checklocks:r.mu
func (r *Registry) contendLocked(o *owner, g *reg) (*Owner, *Refusal) {
	kind, id := string(g.kind), o.ref.PluginID
	if w := r.claims.holder(g.kind, g.key); w != "" && w != id {
		return nil, refuse(kind, g.name, ErrNameTaken, "%s", heldBy(g.name, w))
	}
	table := r.tools
	if g.kind == protocol.KindCommand {
		table = r.commands
	}
	prev := table[g.key]
	if prev == nil || prev.owner == o {
		return nil, nil
	}
	h := prev.owner
	if h.state == Active || (!r.claims.claims(g.kind, g.key, id) && !r.claims.less(id, h.ref.PluginID)) {
		return nil, refuse(kind, g.name, ErrNameTaken, "%s", heldBy(g.name, h.ref.PluginID))
	}
	r.endLocked(h, Failed, heldBy(prev.name, id))
	snap := h.snapshot()
	return &snap, nil
}

// heldBy is the reason a registration of name is refused because plugin holder has it: whose
// it is, and the two ways out.
func heldBy(name, holder string) string {
	return fmt.Sprintf("`%s` belongs to plugin `%s`, which holds it first: rename it in this plugin, or disable `%s`", name, holder, holder)
}

// placeLocked enters g for o against the caps, replacing o's own registration of the name.
//
// +checklocks:r.mu
func (r *Registry) placeLocked(host protocol.HostKey, o *owner, g *reg) (uint64, error) {
	kind, ref := string(g.kind), o.ref
	table, count := r.tools, &r.countLocked(host).tools
	perOwner, ownerMax, hostMax := o.tools, MaxToolsPerOwner, MaxToolsPerHost
	if g.kind == protocol.KindCommand {
		table, count = r.commands, &r.countLocked(host).cmds
		perOwner, ownerMax, hostMax = o.cmds, MaxCommandsPerOwner, MaxCommandsPerHost
	}
	prev := table[g.key]
	if prev == nil {
		if perOwner >= ownerMax {
			return 0, refuse(kind, g.name, ErrLimit, "plugin `%s` already has %d %ss, the limit per plugin", ref.PluginID, ownerMax, kind)
		}
		if *count >= hostMax {
			return 0, refuse(kind, g.name, ErrLimit, "%s already has %d %ss, the limit per host", host.Describe(), hostMax, kind)
		}
	} else {
		r.dropLocked(prev) // same owner: replaced under a new handle
		delete(o.regs, prev.handle)
	}
	r.handle++
	g.handle, g.owner = r.handle, o
	r.addLocked(g)
	return g.handle, nil
}

// addLocked enters an admitted registration in the tables and its owner's set.
//
// +checklocks:r.mu
func (r *Registry) addLocked(g *reg) {
	o := g.owner
	o.regs[g.handle] = g
	r.byHandle[g.handle] = g
	if g.kind == protocol.KindTool {
		r.tools[g.key] = g
		o.tools++
		r.countLocked(o.host).tools++
	} else if g.kind == protocol.KindCommand {
		r.commands[g.key] = g
		o.cmds++
		r.countLocked(o.host).cmds++
	} else if g.kind == protocol.KindHook {
		r.countLocked(o.host).hooks++
	}
	if o.state == Active {
		r.changed()
	}
}

// dropLocked removes a registration from the tables (not from its owner's set).
//
// +checklocks:r.mu
func (r *Registry) dropLocked(g *reg) {
	o := g.owner
	delete(r.byHandle, g.handle)
	if g.kind == protocol.KindTool {
		delete(r.tools, g.key)
		o.tools--
		r.countLocked(o.host).tools--
	} else if g.kind == protocol.KindCommand {
		delete(r.commands, g.key)
		o.cmds--
		r.countLocked(o.host).cmds--
	} else if g.kind == protocol.KindHook {
		r.countLocked(o.host).hooks--
	}
	if o.state == Active {
		r.changed()
	}
}

// Unregister removes exactly the registration with that handle if it belongs to that
// live owner of tier. Anything else (a stale owner, a foreign, retired or unknown
// handle) is a no-op. It reports whether something was removed.
func (r *Registry) Unregister(host protocol.HostKey, p *protocol.UnregisterParams) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.lookupLocked(p.Owner, host)
	if err != nil {
		return false
	}
	g := o.regs[p.Handle]
	if g == nil {
		return false
	}
	r.dropLocked(g)
	delete(o.regs, g.handle)
	return true
}
