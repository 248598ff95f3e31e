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
//   - core/config reads config.toml (runtime, memory, approval posture, each plugin's config
//     table and its digest); core/plugins keeps plugins on disk (staged copies, closure
//     hashes, trust receipts, the state file with its generation counter and diagnostics
//     rings) and says which plugins are desired: enabled ∧ trusted ∧ receipt valid.
//   - core/runtime finds Node or Bun; core/bundle materializes the embedded JS host bundle.
//     Both happen only when a tier is first needed: a Manager with nothing desired spawns
//     nothing (but the shim check, when a plugin is enabled) and writes nothing.
//   - core/supervisor runs one TierRuntime per trust tier (plugin, builtin): the shim and
//     runtime processes, the handshake, heartbeat, crash budget, restarts, bounded
//     shutdown. The Manager is its owner layer: told when an incarnation is ready (it then
//     activates the tier's desired owners) and when one ended (it drops that incarnation's
//     owners, failing the one that was activating alone), and it answers the host's
//     requests and notifications.
//   - core/registry holds owners ({plugin_id, generation, owner_token}) and what they
//     registered, admits or refuses every registration, and validates call inputs
//     against the compiled schemas; core/gate decides approval.
//   - core/rpc is the JSON-RPC peer under each incarnation. Every layer's errors are the
//     kinds of core/errdefs, re-exported here (ErrNotAvailable, ErrViolation, ...).
//
// # Lifecycle
//
// Open reads the home, the config and the state. Reconcile makes the live owners match the
// desired plugins: it revokes what is no longer desired, re-activates (under a new generation)
// exactly the plugins whose closure hash or config digest changed, starts a tier only when a
// desired plugin needs it and activates the missing owners in parallel, so a slow or broken
// plugin never delays another. After the first Reconcile the Manager polls the state
// generation every [plugins.PollInterval], so `cwx plugin disable` in another terminal revokes
// the plugin in a running Manager.
//
// Revocation is synchronous: the owner's registrations are dropped at once, its calls in
// flight are sent `$/cancel` and resolve Cancelled("extension was revoked") within
// [rpc.CancelGrace], then the host is asked to deactivate it within [DeactivateDeadline]. An
// answer other than {disposed: true, leaked: []} is a dirty teardown: recorded in the plugin's
// diagnostics and reported to the supervisor, which restarts the host after
// [supervisor.DefaultDirtyLimit] in [supervisor.DefaultDirtyWindow]. `ext/faulted` marks the
// owner Faulted, drops its registrations and fails its calls NotAvailable; a faulted or failed
// plugin is not activated again until its bytes or config change or Reload is called. After a
// host restart every remaining desired owner is replayed with a fresh generation and token;
// the sole owner that was activating when the host died is failed instead. When several were
// activating together (so no single one can be blamed), they are replayed one at a time after
// the others, and the next crash names the culprit. The same holds for a host killed because
// it stopped answering during activation (an apply that never yields blocks the whole host:
// an ext/activate unanswered at [ActivateDeadline], or a heartbeat kill): the culprit fails
// "apply did not finish within 5s and blocked the host", every other plugin comes back, and
// the search counts as one crash. `log` lines are rate-limited per plugin
// and land in hclog and the plugin's diagnostics ring.
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
// # One fact, one place
//
// Each fact is kept by one layer and asked of it by the others. An owner's state is the
// registry's (the Manager keeps no copy); the calls in flight are counted by the rpc peer per
// incarnation (its slots, and the drain before a planned restart) and by the owner for its
// own revocation, nothing else; which ext/activate was in flight when a host died, and whose
// callback the host's watchdog named (host/busy), are the supervisor's observations, and the
// blame drawn from them (failed, or suspects replayed one at a time) is decided by the
// Manager in one function (blameLocked). The Manager keeps one record per tier: its runtime,
// crash count, the newest incarnations seen and ended, the suspects and the last blame.
//
// Status, Host and Owner report the tiers (state, runtime pid, host generation, crashes)
// and each plugin's owner (state, reason, live names); KillRuntime is the repl's kill -9
// hook and Retry clears a Failed tier.
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
// each activation the core refuses a storage folder over MaxStorageBytes or a symlink
// (core/owners storage.go; “Owner-local storage” below).
//
// # Owner-local storage
//
// `ctx.storage.get(key)`, `set(key, value)`, `delete(key)` and `list()` keep plain JSON in the folder
// the core assigned to the plugin (`ext/activate`'s `data_dir`), under `storage/`, one file
// `<key>.json` per key. No protocol method carries it: the host works in the folder, the core checks
// it.
//
//   - Key `^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`; value plain JSON (null, booleans, finite numbers,
//     strings, arrays, plain objects; nesting at most 64), at most 64 KiB encoded; at most 1 MiB
//     (`core.MaxStorageBytes`) per plugin.
//   - A write replaces its key atomically: a temporary `.tmp-*` file is written, fsynced and renamed
//     over the key, then the folder is fsynced. A host killed mid-write leaves the old value or the
//     new one; the next write removes the temporary.
//   - A symlink, the folder or a key, is never followed (`O_NOFOLLOW`); a file that is not JSON is
//     refused as corrupt, never repaired.
//   - Every operation of an owner runs after the previous one, and only while the owner is
//     Activating or Active.
//   - Before each activation the core refuses a `storage` folder that is a symlink or holds more
//     than 1 MiB (temporaries not counted): the activation fails naming it. It reads the folder
//     through an `os.Root` on the tier's data folder and refuses a symlink anywhere between the two
//     (`plugins.OpenDirNoFollow`, ARCHITECTURE.md, “Plugins and trust”).
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
