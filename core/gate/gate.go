package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// Errors, matched with errors.Is.
var (
	// ErrDenied: the call was not approved (by the posture, the user or a failed prompt).
	ErrDenied = errdefs.ErrDenied
	// ErrNoTerminal: approval had to be asked but there is no terminal to ask on. It is
	// a case of ErrDenied (the gate fails closed).
	ErrNoTerminal = errors.New("approval needed but there is no terminal to ask on")
	// ErrNoApprover: approval had to be asked but no Approver was given. A case of
	// ErrDenied.
	ErrNoApprover = errors.New("approval needed but no approver is configured")
	// ErrBadPosture: a posture value is not ask, auto or deny.
	ErrBadPosture = errors.New("unknown approval posture")
)

// Posture says who answers a Required approval.
type Posture string

// Postures.
const (
	Ask  Posture = "ask"
	Auto Posture = "auto"
	Deny Posture = "deny"
)

// ParsePosture checks a posture value.
func ParsePosture(s string) (Posture, error) {
	switch p := Posture(s); p {
	case Ask, Auto, Deny:
		return p, nil
	}
	return "", fmt.Errorf("%w %q: use ask, auto or deny", ErrBadPosture, s)
}

// ResolvePosture applies the precedence flag, then config, then ask. Empty means unset.
// An invalid value is an error naming where it came from.
func ResolvePosture(flag, config string) (Posture, error) {
	if flag != "" {
		p, err := ParsePosture(flag)
		if err != nil {
			return "", fmt.Errorf("--approve: %w", err)
		}
		return p, nil
	}
	if config != "" {
		p, err := ParsePosture(config)
		if err != nil {
			return "", fmt.Errorf("[extension_host] approval: %w", err)
		}
		return p, nil
	}
	return Ask, nil
}

// Requirement is how strongly a call needs approval.
type Requirement int

// Requirements. Extension tools are always at least Required; only a native tool the core
// or its embedder marks auto-eligible is Eligible.
const (
	Required Requirement = iota + 1 // approved by the posture (auto) or asked
	Forced                          // always asked, even under auto; no session grant applies
	Eligible                        // approved without a card in every posture (ByEligibility)
)

// Decision is an Approver's answer.
type Decision int

// Decisions. The zero value denies. AllowSession remembers the call's exact key (the same
// input); AllowToolForSession remembers its tool key (any input to that tool of that plugin
// build, from the same origin). Neither is remembered for a Forced call, which is then
// allowed once.
const (
	DenyDecision Decision = iota
	AllowOnce
	AllowSession
	AllowToolForSession
)

func (d Decision) String() string {
	switch d {
	case AllowOnce:
		return "allow once"
	case AllowSession:
		return "allow for session"
	case AllowToolForSession:
		return "allow tool for session"
	}
	return "deny"
}

// Approver answers approval cards. An error denies the call.
type Approver interface {
	Approve(ctx context.Context, card Card) (Decision, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, card Card) (Decision, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, card Card) (Decision, error) { return f(ctx, card) }

// Request describes one extension tool call for the gate.
type Request struct {
	PluginID      string
	ClosureSHA256 string // the plugin build's closure hash
	Tool          string
	Input         []byte // the call's JSON input
	OtherPlugins  int    // how many other plugins share the host process
	Requirement   Requirement
	// Native marks a call of a native tool (the core's or its embedder's): PluginID and
	// ClosureSHA256 are empty and the key is nativeKeyOf's.
	Native bool
	// Builtin marks a tool of a builtin module (PluginID is its host:… owner): approved like
	// an extension tool, named as the module's.
	Builtin bool
	// MCP marks a tool of an MCP server the core runs (core/mcpclient): PluginID is
	// mcp:<server>, ClosureSHA256 the server's identity digest (command, args, env names,
	// cwd), Tool the server's own name; keys are mcpKeyOf's, so a grant never outlives a
	// change of what runs.
	MCP bool
	// Caller is set when an extension's tool asks for this call (core/call): Tool is then
	// the core's tool, PluginID and ClosureSHA256 are the caller's, and the key is
	// origin-scoped (callerKeyOf).
	Caller *Caller
	// AgentService marks a core/call of one of the agent's own services (Tool is its
	// name, such as subagents_start): the card names it so. It does not change the key.
	AgentService bool
	// Notes are lines the core composed from pre-execute hooks' asks and annotations, each
	// naming its hook's plugin; the card shows them. They do not change the key.
	Notes []string
	// Diff is what a call of a file-writing native would change, as a unified diff the
	// core composed from the workspace (natives.Plan); the card shows it. It does not
	// change the key.
	Diff string
	// Containment is how the tool's plugin is contained on this machine, in one line the
	// core composed (owners.Layer.Containment); the card's title says it. "" says the
	// plugin runs JavaScript with your permissions.
	Containment string
	// Dev marks a tool of a plugin that runs from a `cwx plugin dev` session (a dev
	// receipt): its code is whatever that folder holds now, reviewed by no one. Its call is
	// asked every time, like a Forced one: no posture but deny decides it and no session
	// grant covers it (so `--approve-extensions` does not approve it); its card says dev.
	Dev bool
}

// Caller is the extension tool a core/call comes from.
type Caller struct {
	PluginID      string
	ClosureSHA256 string
	Tool          string // the extension tool whose invocation asks
}

// Origin is where a gated tool comes from. Every card and every refusal names it, so a
// person can tell the core's own tool from a plugin's.
type Origin string

// Origins.
const (
	OriginNative    Origin = "native"    // the core's (or its embedder's) own tool, called by the model
	OriginExtension Origin = "extension" // a plugin's tool
	OriginBuiltin   Origin = "builtin"   // a tool of one of cwx's builtin modules (host:…)
	OriginCoreCall  Origin = "core/call" // a native tool an extension's tool asks for
	OriginMCP       Origin = "mcp"       // a tool of an MCP server of config.toml (core/mcpclient)
)

// Origin is where req's tool comes from.
func (r Request) Origin() Origin {
	switch {
	case r.Caller != nil:
		return OriginCoreCall
	case r.Native:
		return OriginNative
	case r.Builtin:
		return OriginBuiltin
	case r.MCP:
		return OriginMCP
	}
	return OriginExtension
}

// Subject names the call as every refusal and card does, by its origin: "native tool
// `shell`", "extension tool `greet` from plugin `hello`", "tool `run` of builtin module
// `host:scripts`", or "native tool `shell` requested by plugin `hello` from its tool
// `greet` (core/call)".
func (r Request) Subject() string {
	switch r.Origin() {
	case OriginCoreCall:
		return fmt.Sprintf("native tool `%s` requested by plugin `%s` from its tool `%s` (core/call)", r.Tool, r.Caller.PluginID, r.Caller.Tool)
	case OriginNative:
		return fmt.Sprintf("native tool `%s`", r.Tool)
	case OriginBuiltin:
		return fmt.Sprintf("tool `%s` of builtin module `%s`", r.Tool, r.PluginID)
	case OriginMCP:
		return fmt.Sprintf("tool `%s` of MCP server `%s`", r.Tool, strings.TrimPrefix(r.PluginID, "mcp:"))
	}
	return fmt.Sprintf("extension tool `%s` from plugin `%s`", r.Tool, r.PluginID)
}

func (r Request) what() string { return r.Subject() }

// nativeKeyOf is the approval key of a native tool's call by the model:
// native:<tool>:<sha256 hex of the RFC 8785 canonical input>.
func nativeKeyOf(tool string, canon []byte) string {
	sum := sha256.Sum256(canon)
	return "native:" + tool + ":" + hex.EncodeToString(sum[:])
}

// callerKeyOf is the origin-scoped approval key of a core/call:
// extcall:ext:<plugin_id>@<closure sha256>:<tool>:<sha256 hex of the canonical input>, so a
// grant for a model's call of tool never covers an extension's, and the reverse.
func callerKeyOf(c Caller, tool string, canon []byte) string {
	return "extcall:" + keyOf(c.PluginID, c.ClosureSHA256, tool, canon)
}

// ToolKey returns the tool key of a model's call of an extension tool, the key
// AllowToolForSession remembers: tool:ext:<plugin_id>@<closure sha256>:<tool>, the call's
// key without the input hash. Another build of the plugin (another closure hash) asks again.
func ToolKey(pluginID, closureSHA256, tool string) string {
	return "tool:ext:" + pluginID + "@" + closureSHA256 + ":" + tool
}

// callerToolKey is the origin-scoped tool key of a core/call:
// tool:extcall:ext:<plugin_id>@<closure sha256>:<tool>, so a grant of a tool for a model's
// calls never covers an extension's, and the reverse.
func callerToolKey(c Caller, tool string) string {
	return "tool:extcall:ext:" + c.PluginID + "@" + c.ClosureSHA256 + ":" + tool
}

// nativeToolKey is the tool key of a model's call of a native tool: tool:native:<tool>.
func nativeToolKey(tool string) string { return "tool:native:" + tool }

// toolKey is the tool key of req, or "" for a Forced or dev call (no tool grant applies).
func (r Request) toolKey() string {
	switch {
	case r.Requirement == Forced || r.Dev:
		return ""
	case r.Caller != nil:
		return callerToolKey(*r.Caller, r.Tool)
	case r.Native:
		return nativeToolKey(r.Tool)
	case r.MCP:
		return "tool:" + mcpKeyOf(r.PluginID, r.ClosureSHA256, r.Tool, nil)
	}
	return ToolKey(r.PluginID, r.ClosureSHA256, r.Tool)
}

// keyOf is the approval key of a model's call of an extension tool:
// ext:<plugin_id>@<closure sha256>:<tool>:<sha256 hex of the RFC 8785 canonical input>.
func keyOf(pluginID, closure, tool string, canon []byte) string {
	sum := sha256.Sum256(canon)
	return "ext:" + pluginID + "@" + closure + ":" + tool + ":" + hex.EncodeToString(sum[:])
}

// mcpKeyOf is the approval key of a model's call of an MCP server's tool:
// mcp:<mcp:server>@<identity digest>:<tool>:<sha256 hex of the canonical input>, or without
// the input hash when canon is nil (the tool key).
func mcpKeyOf(server, identity, tool string, canon []byte) string {
	k := "mcp:" + server + "@" + identity + ":" + tool
	if canon == nil {
		return k
	}
	sum := sha256.Sum256(canon)
	return k + ":" + hex.EncodeToString(sum[:])
}

// Source says what approved a call.
type Source string

// Sources of an approval.
const (
	BySessionGrant Source = "session grant"
	ByToolGrant    Source = "tool session grant"
	ByPosture      Source = "posture auto"
	ByApprover     Source = "approver"
	ByEligibility  Source = "auto-eligible"
)

// Gate holds the posture and the session grants of one session. It is safe for
// concurrent use.
type Gate struct {
	posture  Posture
	approver Approver

	mu sync.Mutex
	// +checklocks:mu
	grants map[string]struct{}
}

// New returns a gate with a posture and a default approver (nil: none; asking then
// fails closed).
func New(posture Posture, approver Approver) *Gate {
	if posture == "" {
		posture = Ask
	}
	return &Gate{posture: posture, approver: approver, grants: map[string]struct{}{}}
}

// Posture returns the gate's posture.
func (g *Gate) Posture() Posture { return g.posture }

// Check decides a call. approver overrides the gate's default when not nil. It returns
// what approved the call, or an error matching ErrDenied (the user, the posture, or a
// prompt that could not be shown) or the context's error.
func (g *Gate) Check(ctx context.Context, req Request, approver Approver) (Source, error) {
	forced := req.Requirement == Forced || req.Dev
	if req.Requirement == Eligible && !req.Dev {
		if err := checkCanonicalizable(req.Input); err != nil {
			return "", err
		}
		return ByEligibility, nil
	}
	if !forced && g.posture == Auto && !g.anyGrants() {
		// No grant to look up, nothing to show: the input must still have a canonical
		// form, but the form and its hash (the key) are not needed.
		if err := checkCanonicalizable(req.Input); err != nil {
			return "", err
		}
		return ByPosture, nil
	}
	canon, err := Canonicalize(req.Input)
	if err != nil {
		return "", err
	}
	if g.posture == Deny {
		return "", fmt.Errorf("%w: %s: the approval posture is deny", ErrDenied, req.what())
	}
	key := keyOf(req.PluginID, req.ClosureSHA256, req.Tool, canon)
	switch {
	case req.Caller != nil:
		key = callerKeyOf(*req.Caller, req.Tool, canon)
	case req.Native:
		key = nativeKeyOf(req.Tool, canon)
	case req.MCP:
		key = mcpKeyOf(req.PluginID, req.ClosureSHA256, req.Tool, canon)
	}
	toolKey := req.toolKey()
	switch {
	case !forced && g.granted(key):
		return BySessionGrant, nil
	case !forced && g.granted(toolKey):
		return ByToolGrant, nil
	case !forced && g.posture == Auto:
		return ByPosture, nil
	}
	if approver == nil {
		approver = g.approver
	}
	if approver == nil {
		return "", fmt.Errorf("%w: %w for %s", ErrDenied, ErrNoApprover, req.what())
	}
	card := NewCard(req, key, canon)
	d, err := approver.Approve(ctx, card)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return "", err
		}
		return "", fmt.Errorf("%w: %w", ErrDenied, err)
	}
	switch d {
	case AllowSession:
		if !forced {
			g.grant(key)
		}
		return ByApprover, nil
	case AllowToolForSession:
		if !forced {
			g.grant(toolKey)
		}
		return ByApprover, nil
	case AllowOnce:
		return ByApprover, nil
	}
	return "", fmt.Errorf("%w: %s was not approved", ErrDenied, req.what())
}

func (g *Gate) granted(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.grants[key]
	return ok
}

func (g *Gate) anyGrants() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.grants) > 0
}

func (g *Gate) grant(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.grants[key] = struct{}{}
}

// Granted reports whether the session remembers key.
func (g *Gate) Granted(key string) bool { return g.granted(key) }
