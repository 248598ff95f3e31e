package protocol

import (
	"reflect"
	"slices"

	"github.com/cwx-dev/cwx/shared/frame"
)

// AnyObjectShape is the shape name of a result that may be any JSON object, never strict.
const AnyObjectShape = "AnyObject"

// Version is the protocol version both sides speak.
const Version = 1

// Limits shared by both sides (core/protocol doc.go, “Limits”).
const (
	MaxFrame    = frame.MaxPayload // bytes of one frame's payload: the framing's own limit
	MaxInflight = 256              // requests in flight per direction
	MaxDepth    = 64               // JSON nesting depth (objects and arrays)
	// NetMaxChunk is the most body bytes one net/fetch, net/write (decoded from base64) or
	// net/read (its attachment) carries: 1 MiB, far under MaxFrame.
	NetMaxChunk = 1 << 20
	// MaxUint is the largest unsigned integer accepted on the wire: 2^53-1, the largest
	// integer the JS side represents exactly.
	MaxUint = 1<<53 - 1
)

// Tier is the trust tier a host runs.
type Tier string

// The two tiers.
const (
	TierPlugin  Tier = "plugin"
	TierBuiltin Tier = "builtin"
)

// Valid reports whether t is one of the two tiers.
func (t Tier) Valid() bool { return t == TierPlugin || t == TierBuiltin }

// HostKey names one host process tree: the tier it runs and, for a plugin given a host of
// its own (isolation = "process"), that plugin's id as Group. A tier's shared host has
// Group "". Owners, registrations, tickets and generations belong to one HostKey; the
// tier alone decides what its frames may carry.
type HostKey struct {
	Tier  Tier
	Group string
}

// SharedHost is tier t's shared host.
func SharedHost(t Tier) HostKey { return HostKey{Tier: t} }

// Isolated reports whether k is a plugin's own host.
func (k HostKey) Isolated() bool { return k.Group != "" }

// String is how logs and listings name the host: the tier, or "plugin:<id>".
func (k HostKey) String() string {
	if k.Group == "" {
		return string(k.Tier)
	}
	return string(k.Tier) + ":" + k.Group
}

// Describe is the host as a sentence names it: "the plugin tier's host" or "plugin
// `<id>`'s own host".
func (k HostKey) Describe() string {
	if k.Group == "" {
		return "the " + string(k.Tier) + " tier's host"
	}
	return "plugin `" + k.Group + "`'s own host"
}

// Direction says who sends a method.
type Direction string

// Directions. DirBoth is only used by $/cancel, which either side sends.
const (
	CoreToHost Direction = "core_to_host"
	HostToCore Direction = "host_to_core"
	DirBoth    Direction = "both"
)

// Method names.
const (
	MethodHostInitialize = "host/initialize"
	MethodHostPing       = "host/ping"
	MethodHostShutdown   = "host/shutdown"
	MethodExtActivate    = "ext/activate"
	MethodExtDeactivate  = "ext/deactivate"
	MethodToolCall       = "tool/call"
	MethodCommandRun     = "command/run"
	MethodHookEvaluate   = "hook/evaluate"
	MethodHarnessRun     = "harness/run"
	MethodCancel         = "$/cancel"

	MethodHostHello          = "host/hello"
	MethodHostReady          = "host/ready"
	MethodRegistryRegister   = "registry/register"
	MethodRegistryUnregister = "registry/unregister"
	MethodCoreCall           = "core/call"
	MethodUserAsk            = "user/ask"
	MethodNetFetch           = "net/fetch"
	MethodNetWrite           = "net/write"
	MethodNetRead            = "net/read"
	MethodNetClose           = "net/close"
	MethodExtFaulted         = "ext/faulted"
	MethodLog                = "log"
	MethodHostBusy           = "host/busy"
)

// MethodSpec is one row of the method table.
type MethodSpec struct {
	Name      string
	Direction Direction // who sends it
	Request   bool      // false: notification
	Tiers     []Tier    // tiers on which it may be sent
	// ParamsShape names the params type (a key of Shapes()).
	ParamsShape string
	// ResultShape names the result type of a request (empty for a notification);
	// AnyObjectShape means any JSON object (the result of harness/run).
	ResultShape string
	// ResultAttachment says the result may carry an attachment (core/protocol doc.go,
	// “Framing”): raw bytes after the JSON text.
	ResultAttachment bool

	params reflect.Type
	result reflect.Type
}

// AllowedOn reports whether the method may be sent on tier t.
func (s MethodSpec) AllowedOn(t Tier) bool { return slices.Contains(s.Tiers, t) }

// SentBy reports whether d (CoreToHost or HostToCore) sends this method.
func (s MethodSpec) SentBy(d Direction) bool { return s.Direction == DirBoth || s.Direction == d }

var (
	bothTiers   = []Tier{TierPlugin, TierBuiltin}
	builtinOnly = []Tier{TierBuiltin}
)

func request(name string, dir Direction, tiers []Tier, params, result any) MethodSpec {
	s := MethodSpec{Name: name, Direction: dir, Request: true, Tiers: tiers, params: reflect.TypeOf(params).Elem()}
	s.ParamsShape = s.params.Name()
	s.ResultShape = AnyObjectShape
	if result != nil {
		s.result = reflect.TypeOf(result).Elem()
		s.ResultShape = s.result.Name()
	}
	return s
}

// withAttachment marks a request's result as one that may carry an attachment.
func withAttachment(s MethodSpec) MethodSpec {
	s.ResultAttachment = true
	return s
}

func notification(name string, dir Direction, params any) MethodSpec {
	s := MethodSpec{Name: name, Direction: dir, Tiers: bothTiers, params: reflect.TypeOf(params).Elem()}
	s.ParamsShape = s.params.Name()
	return s
}

// methodTable is the method table (core/protocol doc.go, “Methods”). A nil result means "any JSON
// object" (harness/run, whose result its caller checks).
var methodTable = []MethodSpec{
	request(MethodHostInitialize, CoreToHost, bothTiers, (*InitializeParams)(nil), (*Empty)(nil)),
	request(MethodHostPing, CoreToHost, bothTiers, (*Empty)(nil), (*Empty)(nil)),
	request(MethodHostShutdown, CoreToHost, bothTiers, (*Empty)(nil), (*Empty)(nil)),
	request(MethodExtActivate, CoreToHost, bothTiers, (*ActivateParams)(nil), (*ActivateResult)(nil)),
	request(MethodExtDeactivate, CoreToHost, bothTiers, (*DeactivateParams)(nil), (*DeactivateResult)(nil)),
	request(MethodToolCall, CoreToHost, bothTiers, (*ToolCallParams)(nil), (*ToolResult)(nil)),
	request(MethodCommandRun, CoreToHost, bothTiers, (*CommandRunParams)(nil), (*CommandResult)(nil)),
	request(MethodHookEvaluate, CoreToHost, bothTiers, (*HookEvaluateParams)(nil), (*HookVerdict)(nil)),
	request(MethodHarnessRun, CoreToHost, builtinOnly, (*HarnessRunParams)(nil), nil),
	notification(MethodCancel, DirBoth, (*CancelParams)(nil)),

	notification(MethodHostHello, HostToCore, (*HelloParams)(nil)),
	notification(MethodHostReady, HostToCore, (*Empty)(nil)),
	request(MethodRegistryRegister, HostToCore, bothTiers, (*RegisterParams)(nil), (*RegisterResult)(nil)),
	request(MethodRegistryUnregister, HostToCore, bothTiers, (*UnregisterParams)(nil), (*Empty)(nil)),
	request(MethodCoreCall, HostToCore, bothTiers, (*CoreCallParams)(nil), (*ToolResult)(nil)),
	request(MethodUserAsk, HostToCore, bothTiers, (*UserAskParams)(nil), (*UserAnswer)(nil)),
	withAttachment(request(MethodNetFetch, HostToCore, bothTiers, (*NetFetchParams)(nil), (*NetResponseHead)(nil))),
	request(MethodNetWrite, HostToCore, bothTiers, (*NetWriteParams)(nil), (*Empty)(nil)),
	withAttachment(request(MethodNetRead, HostToCore, bothTiers, (*NetReadParams)(nil), (*NetChunk)(nil))),
	request(MethodNetClose, HostToCore, bothTiers, (*NetCloseParams)(nil), (*Empty)(nil)),
	notification(MethodExtFaulted, HostToCore, (*FaultedParams)(nil)),
	notification(MethodLog, HostToCore, (*LogParams)(nil)),
	notification(MethodHostBusy, HostToCore, (*BusyParams)(nil)),
}

var methodIndex = func() map[string]MethodSpec {
	m := make(map[string]MethodSpec, len(methodTable))
	for _, s := range methodTable {
		m[s.Name] = s
	}
	return m
}()

// Lookup returns the table row of a method.
func Lookup(method string) (MethodSpec, bool) {
	s, ok := methodIndex[method]
	return s, ok
}
