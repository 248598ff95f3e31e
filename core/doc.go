// Package core is cwx's embeddable core: the Manager that runs the plugins a user enabled
// and trusted in out-of-process JavaScript hosts, and the single gate every call to their
// tools and commands passes.
//
// # Embedding
//
// A Go program embeds the core in five steps (examples/embed is a complete one; Example
// below runs as a test):
//
//  1. Dispatch the shim first in main: the Manager starts each host tier by running the
//     program itself as `<program> nodeshim`, so main begins with
//     `if shared.Invoked(os.Args) { os.Exit(nodeshim.Main(os.Args[2:])) }` (or set
//     Options.ShimPath to an installed cwx binary). Open checks this once when a plugin is
//     enabled and fails with ErrNoShim, saying so, when the program runs its own main instead.
//  2. Open a Manager with Options: the cwx home (Home, default $CWX_HOME or ~/.cwx), an
//     Approver (ApproverFunc adapts a function; the card is the core's, never the plugin's
//     words; answer AllowOnce, AllowSession for this exact call, AllowToolForSession for
//     any input to the tool of that plugin build, or DenyDecision), and a Logger (nil is
//     DefaultLogger: warnings on stderr).
//  3. Manage plugins through Plugins (a PluginStore: Install, Review, Trust with the review's
//     token, Enable, Disable, Remove), or let the user do it with the cwx CLI.
//  4. Reconcile to start the hosts of the enabled, trusted plugins; list Tools and Commands;
//     call them with CallTool and RunCommand; follow Changes for a live catalog; read Status,
//     Owners and Owner for the tiers and plugins.
//  5. Close to stop every host within its bound.
//
// Every error matches a kind with errors.Is: ErrInvalidInput, ErrDenied, ErrNotAvailable
// (ErrUnknownTool, ErrHostExited, ErrBusy and ErrNoShim are cases of it), ErrCancelled,
// ErrTimeout, ErrExecutionFailed. Nothing below core is needed to embed it: the types the
// Manager takes and returns are named here (PluginStore, Tier, TierState, Decision, ...).
//
// # The pieces it wires
//
// The Manager is a facade over the owner layer and the call path. core/owners runs the owners
// of the desired plugins (enabled ∧ trusted ∧ receipt valid, kept by core/plugins), their
// activation, replay, blame and revocation, the tiers and hosts core/supervisor starts, the
// catalog, and lazy activation; Reconcile, Reload, Advertise, Status, Host, Owner, Owners,
// Changes and Close are its door (core/owners doc.go, “The owner layer”, “Per-plugin
// hosts”). The call path is this package's: look-up, validation against the registry's
// compiled schema, the pre-execute hooks, the gate, send, and the receipts of the core/call
// requests the invocation made. core/config reads config.toml, core/runtime finds Node or
// Bun, core/bundle materializes the JS host bundle, both only when a tier is first needed: a
// Manager with nothing desired spawns nothing (but the shim check, when a plugin is enabled)
// and writes nothing. Every layer's errors are the kinds of core/errdefs, re-exported here.
//
// One fact, one place: an owner's state is the registry's, the calls in flight are counted by
// the rpc peer per incarnation and by the owner for its revocation, the crashes of a tier are
// the supervisor's windowed count, and the blame drawn from what the supervisor saw is the
// owner layer's (core/owners doc.go, “One fact, one place”). The Manager keeps none of them.
//
// # Calls
//
// CallTool looks the live tool up once (a registry.Target: handle, owner and generation,
// tier, compiled schema), checks the owner is the plugin's current one and its receipt in
// memory, validates the input against the snapshot's schema (ErrInvalidInput, at most
// [registry.MaxViolations] violations; the host sees nothing), asks the gate (ErrDenied; the
// host sees nothing), then sends tool/call with the caller's workspace, session, agent and
// turn ids, under [ToolCallDeadline]. Liveness is checked again only at send time, on the
// owner: a call is admitted unless the owner ended, and counted so revocation waits for it.
// Cancelling the caller's context sends `$/cancel`.
// RunCommand does the same for commands ([CommandRunDeadline]; no approval: a person typed it)
// and returns success or error text with terminal escapes stripped and cut at
// [MaxCommandText], or a submit prompt (refused when empty or over [MaxSubmitPrompt]). Every
// error matches one of ErrInvalidInput, ErrDenied, ErrNotAvailable (ErrHostExited and ErrBusy
// are cases of it), ErrCancelled, ErrTimeout or ErrExecutionFailed with errors.Is.
//
// Host requests: registry/register and registry/unregister go to the registry (only for an
// owner that is current and lives in the asking incarnation); hooks are admitted by the
// registry and asked before every gated call (below); prompt sections are admitted by the
// registry and listed by PromptSections (calls.go), framed as plugin text; user/ask puts a
// plugin's question to the call's Asker, only with the ticket of a live invocation of that
// plugin's own tool or command (corecall.go, core/questions; a command/run carries a ticket
// valid for questions only); core/call runs a native tool for the tool/call whose capability ticket
// it presents (corecall.go, invocation.go): refused names first, then the native's schema,
// the per-invocation caps and the gate with the caller's origin-scoped keys; the
// invocation's deadline stands still while a card waits (ARCHITECTURE.md, “Approval”).
//
// Pre-execute hooks: before the gate decides any call (an extension tool's, a native's through
// CallTool, a core/call) the Manager sends hook/evaluate to every hook of an Active owner, the
// caller's own included, with the input decoded as JSON.stringify(JSON.parse(x)) writes it,
// and applies package hooks' fold (prehook.go): a deny is ErrDenied naming the hook's plugin,
// an ask forces the card, a revise is validated against the tool's schema again, asked once
// more of every hook but the reviser, and is what the gate and the tool see; the notes go on
// the card. A hook whose owner ends, whose host dies, that errs or that misses the 5 s batch
// deadline denies; while a plugin whose catalog entry lists a hook has no Active owner, every
// call is denied (*HooksDownError).
//
// Owner-local storage lives in the plugin's data folder and is the host's to keep; before
// each activation the owner layer refuses a storage folder over MaxStorageBytes or a symlink
// (core/owners doc.go, “Owner-local storage”).
//
// # Questions and agent services
//
// While one of its tools or commands runs, a plugin may ask the person a question (user/ask
// with the invocation's ticket; the call's Asker answers): core/questions doc.go, “Questions
// to the person”. From inside one of its tools it may call the services only the embedding
// agent owns (Options.Sessions, Subagents, Skills, GitReviewScope), through core/call by a
// reserved name: core/services doc.go, “Agent services”. The call path keeps the ticket, the
// caps, the one card at a time and the paused deadline (corecall.go); the two packages keep
// the checks and the services.
package core
