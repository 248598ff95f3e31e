package registry

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// State is where an owner is in its life.
type State int

// Owner states.
const (
	Activating State = iota + 1
	Active
	Failed
	Faulted
	Revoked
)

func (s State) String() string {
	switch s {
	case Activating:
		return "activating"
	case Active:
		return "active"
	case Failed:
		return "failed"
	case Faulted:
		return "faulted"
	case Revoked:
		return "revoked"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Live reports whether an owner in this state may register and be called.
func (s State) Live() bool { return s == Activating || s == Active }

// Limits of ARCHITECTURE.md, “Registry rules”.
const (
	MaxToolsPerOwner      = 128
	MaxToolsPerHost       = 1024
	MaxCommandsPerOwner   = 64
	MaxCommandsPerHost    = 256
	MaxToolDescription    = 4096
	MaxSchemaBytes        = 65536
	MaxCommandDescription = 1024
	MaxArgumentHint       = 256
	MaxViolations         = 5
	tokenBytes            = 32
)

// Options configure a Registry.
type Options struct {
	// NativeTools are the embedder's own tool names, reserved like NativeToolNames.
	NativeTools []string
	// BuiltinCommands are the embedder's own command names and aliases, reserved like
	// BuiltinCommandNames.
	BuiltinCommands []string
	// Changed, when set, is called after every change of what Tools or Commands list,
	// with the registry's lock held: it must not call the registry and must not block.
	Changed func()
}

// Owner is a snapshot of one owner.
type Owner struct {
	Ref      protocol.OwnerRef
	Tier     protocol.Tier
	Host     protocol.HostKey // the host it lives in (Host.Tier == Tier)
	State    State
	Reason   string // why it failed, faulted or was revoked
	Tools    int
	Commands int
}

type owner struct {
	ref    protocol.OwnerRef
	host   protocol.HostKey
	state  State
	reason string
	regs   map[uint64]*reg
	tools  int
	cmds   int
}

func (o *owner) snapshot() Owner {
	return Owner{Ref: o.ref, Tier: o.host.Tier, Host: o.host, State: o.state, Reason: o.reason, Tools: o.tools, Commands: o.cmds}
}

// reg is one admitted registration.
type reg struct {
	handle   uint64
	kind     protocol.RegisterKind
	owner    *owner
	name     string
	key      string // folded name (Fold)
	desc     string
	hint     string
	schema   []byte
	compiled *jsonschema.Schema
}

// tierCount is what one host holds: registrations against the per-host caps, and its
// Active owners.
type tierCount struct{ tools, cmds, hooks, active int }

// Registry holds owners and their registrations.
type Registry struct {
	names   nameTables
	schemas schemaCache
	changed func() // Options.Changed, or a no-op

	// mu guards the tables below and every owner's and registration's mutable fields.
	mu         sync.RWMutex
	generation uint64 // +checklocks:mu
	handle     uint64 // +checklocks:mu
	// owners holds, by generation, only the latest owner of each plugin.
	owners map[uint64]*owner // +checklocks:mu
	// latest maps a plugin id to the generation of its latest owner.
	latest   map[string]uint64 // +checklocks:mu
	byHandle map[uint64]*reg   // +checklocks:mu
	// tools and commands are keyed by the folded name (Fold).
	tools    map[string]*reg                 // +checklocks:mu
	commands map[string]*reg                 // +checklocks:mu
	perHost  map[protocol.HostKey]*tierCount // +checklocks:mu
	// claims is the claim table: who a name belongs to before and during activation.
	claims claimTable // +checklocks:mu
}

// New returns an empty registry.
func New(opts Options) *Registry {
	changed := opts.Changed
	if changed == nil {
		changed = func() {}
	}
	return &Registry{
		names:    newNameTables(opts.NativeTools, opts.BuiltinCommands),
		changed:  changed,
		owners:   map[uint64]*owner{},
		latest:   map[string]uint64{},
		byHandle: map[uint64]*reg{},
		tools:    map[string]*reg{},
		commands: map[string]*reg{},
		perHost:  map[protocol.HostKey]*tierCount{},
		claims:   newClaimTable(map[string]Claim{}),
	}
}

// BeginOwner starts a new activation of pluginID in host: a fresh generation and token,
// state Activating. It refuses an id that does not fit the host's tier, a plugin's own
// host named for another plugin, and a plugin that already has a live owner.
func (r *Registry) BeginOwner(pluginID string, host protocol.HostKey) (protocol.OwnerRef, error) {
	if !host.Tier.Valid() {
		return protocol.OwnerRef{}, fmt.Errorf("%w: unknown tier %q", ErrInvalidOwner, host.Tier)
	}
	if host.Group != "" && (host.Group != pluginID || host.Tier != protocol.TierPlugin) {
		return protocol.OwnerRef{}, fmt.Errorf("%w: %s is not plugin `%s`'s host", ErrInvalidOwner, host, pluginID)
	}
	if why := checkOwnerID(pluginID, host.Tier == protocol.TierBuiltin); why != "" {
		return protocol.OwnerRef{}, fmt.Errorf("%w: %s", ErrInvalidOwner, why)
	}
	token, err := newToken()
	if err != nil {
		return protocol.OwnerRef{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if g, ok := r.latest[pluginID]; ok {
		prev := r.owners[g]
		if prev.state.Live() {
			return protocol.OwnerRef{}, fmt.Errorf("%w: plugin `%s` already has a live owner (generation %d); revoke it first", ErrInvalidOwner, pluginID, g)
		}
		delete(r.owners, g)
	}
	r.generation++
	o := &owner{
		ref:   protocol.OwnerRef{PluginID: pluginID, Generation: r.generation, OwnerToken: token},
		host:  host,
		state: Activating,
		regs:  map[uint64]*reg{},
	}
	r.owners[o.ref.Generation] = o
	r.latest[pluginID] = o.ref.Generation
	return o.ref, nil
}

func newToken() (string, error) {
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("registry: minting an owner token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// lookupLocked returns the live owner ref names in host, or ErrStaleOwner.
//
// +checklocksread:r.mu
func (r *Registry) lookupLocked(ref protocol.OwnerRef, host protocol.HostKey) (*owner, error) {
	o := r.owners[ref.Generation]
	if o == nil || o.ref.PluginID != ref.PluginID || o.host != host || !o.state.Live() ||
		subtle.ConstantTimeCompare([]byte(o.ref.OwnerToken), []byte(ref.OwnerToken)) != 1 {
		return nil, ErrStaleOwner
	}
	return o, nil
}

// Check reports whether ref is exactly a live owner in host (nil) or ErrStaleOwner.
func (r *Registry) Check(ref protocol.OwnerRef, host protocol.HostKey) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, err := r.lookupLocked(ref, host)
	return err
}

// Activate moves an Activating owner to Active. What it registered becomes its plugin's
// claims (SetClaims, Claims).
func (r *Registry) Activate(ref protocol.OwnerRef, host protocol.HostKey) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.lookupLocked(ref, host)
	if err != nil {
		return err
	}
	if o.state != Activating {
		return fmt.Errorf("%w: owner of `%s` is %s, not activating", ErrStaleOwner, ref.PluginID, o.state)
	}
	o.state = Active
	r.countLocked(o.host).active++
	r.recordClaimsLocked(o)
	if len(o.regs) > 0 {
		r.changed()
	}
	return nil
}

// Fail ends an owner whose activation failed; its registrations are dropped.
func (r *Registry) Fail(ref protocol.OwnerRef, host protocol.HostKey, reason string) error {
	return r.end(ref, host, Failed, reason)
}

// Fault ends an owner the host reported faulted; its registrations are dropped.
func (r *Registry) Fault(ref protocol.OwnerRef, host protocol.HostKey, reason string) error {
	return r.end(ref, host, Faulted, reason)
}

// Revoke ends an owner whose plugin is no longer desired; its registrations are
// dropped at once.
func (r *Registry) Revoke(ref protocol.OwnerRef, host protocol.HostKey, reason string) error {
	return r.end(ref, host, Revoked, reason)
}

func (r *Registry) end(ref protocol.OwnerRef, host protocol.HostKey, to State, reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.lookupLocked(ref, host)
	if err != nil {
		return err
	}
	r.endLocked(o, to, reason)
	return nil
}

// +checklocks:r.mu
func (r *Registry) endLocked(o *owner, to State, reason string) {
	for h, g := range o.regs {
		r.dropLocked(g)
		delete(o.regs, h)
	}
	if o.state == Active {
		r.countLocked(o.host).active--
	}
	o.state, o.reason = to, reason
}

// countLocked returns host's counts, creating them.
//
// +checklocks:r.mu
func (r *Registry) countLocked(host protocol.HostKey) *tierCount {
	c := r.perHost[host]
	if c == nil {
		c = &tierCount{}
		r.perHost[host] = c
	}
	return c
}

// countOf returns a copy of host's counts (zero for a host never counted).
//
// +checklocksread:r.mu
func (r *Registry) countOf(host protocol.HostKey) tierCount {
	if c := r.perHost[host]; c != nil {
		return *c
	}
	return tierCount{}
}

// HostExited records that host went away: every live owner in it loses its
// registrations. The sole owner that was Activating is Failed ("host crashed during
// activation: <reason>") and is not to be replayed; every other live owner is Revoked
// and returned in replay, for the caller to activate again under new generations.
func (r *Registry) HostExited(host protocol.HostKey, reason string) (replay []string, blamed string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var activating []*owner
	var live []*owner
	for _, o := range r.owners {
		if o.host != host || !o.state.Live() {
			continue
		}
		live = append(live, o)
		if o.state == Activating {
			activating = append(activating, o)
		}
	}
	for _, o := range live {
		if len(activating) == 1 && o == activating[0] {
			blamed = o.ref.PluginID
			r.endLocked(o, Failed, "host crashed during activation: "+reason)
			continue
		}
		replay = append(replay, o.ref.PluginID)
		r.endLocked(o, Revoked, "host exited: "+reason)
	}
	slices.Sort(replay)
	return replay, blamed
}

// Owner returns the latest owner of a plugin.
func (r *Registry) Owner(pluginID string) (Owner, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	g, ok := r.latest[pluginID]
	if !ok {
		return Owner{}, false
	}
	return r.owners[g].snapshot(), true
}

// State returns the state of exactly the owner ref names. An owner the registry no longer
// keeps (a newer owner of its plugin began) was ended, and is reported Revoked.
func (r *Registry) State(ref protocol.OwnerRef) State {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if o := r.owners[ref.Generation]; o != nil && o.ref == ref {
		return o.state
	}
	return Revoked
}

// ActiveOwners returns how many owners in host are Active.
func (r *Registry) ActiveOwners(host protocol.HostKey) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c := r.perHost[host]; c != nil {
		return c.active
	}
	return 0
}

// Owners returns the latest owner of every plugin, sorted by plugin id.
func (r *Registry) Owners() []Owner {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Owner, 0, len(r.owners))
	for _, o := range r.owners {
		out = append(out, o.snapshot())
	}
	slices.SortFunc(out, func(a, b Owner) int { return strings.Compare(a.Ref.PluginID, b.Ref.PluginID) })
	return out
}
