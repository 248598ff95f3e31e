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
// registry and listed by PromptSections (prompt.go), framed as plugin text; user/ask puts a
// plugin's question to the call's Asker, only with the ticket of a live invocation of that
// plugin's own tool or command (questions.go; a command/run carries a ticket valid for
// questions only); core/call runs a native tool for the tool/call whose capability ticket
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
// # Questions to the person
//
// While one of its tools or commands runs, a plugin may ask the person a question: DSH's
// `ctx.userQuestions.ask(question)` (`src/shims/questions.ts`), where `question` is a string or
// `{question, options?: [label | {label, description?}], allowText?}`. The host sends `user/ask
// {owner, ticket, question: {text, options?, allow_text?}}` with the running invocation's ticket,
// kept in an async scope handed to no plugin code (in the shared process not a wall: ARCHITECTURE.md, “Trust model”); outside a tool or command of the asking plugin
// there is none and the host refuses. `wait`, `timeout`, `timeoutMs` and `deadline` are refused by
// name: a question waits for the person, untimed.
//
//   - Tickets: a `tool/call`'s `Invocation` ticket serves `core/call` and `user/ask`; a `command/run`
//     now carries a `Command` ticket, valid for `user/ask` only (`tickets.RedeemQuestion`). Each
//     question spends one use; the ticket's host, owner and liveness are checked as for `core/call`,
//     and a question after its invocation ended is refused -32002 ("only during a live invocation of
//     its own tool or command").
//   - The question is checked: text non-empty, at most `core.MaxQuestionText` (4096) bytes; at most
//     `core.MaxQuestionChoice` (16) options with distinct non-empty labels; labels and descriptions at
//     most 1024 bytes; everything valid UTF-8 without the characters `core/inert` refuses (-32602
//     otherwise). With no options the person answers in their own words.
//   - The call's `CallOptions.Asker` answers (like the `Approver`), told the plugin, whether a tool or
//     a command asks, and its name. The CLI's asker asks on the terminal (`[n]` picks an option, a
//     line of text is the person's own answer when allowed, an empty line or end of input skips); with
//     no terminal, or no Asker at all, the answer is the typed error `NO_PROVIDER` (-32002 with data
//     `{"code": "NO_PROVIDER"}`; `QuestionError.code` in the plugin). Questions and approval cards of
//     one invocation are shown one at a time, and the invocation's deadline stands still while one
//     waits.
//   - The answer is typed: `{kind: "choice", choice}` (one of the labels, checked), `{kind: "text",
//     text}` (at most 16 KiB) or `{kind: "skipped"}`.
//
// # Agent services
//
// Some services only the agent that embeds cwx can own: saving its session, its sub-agent
// manager, its skills folders, and bounded git metadata queries in its workspace. Each is an
// optional interface in Options (Sessions, Subagents, Skills, GitReviewScope; services.go). A
// plugin reaches one only from inside one of its own tools, through `core/call` with that
// invocation's ticket, by a reserved name: `sessions_flush`, `subagents_start`,
// `subagents_result`, `subagents_dispose`, `skills_list`, `git_review_scope` (servicecall.go).
// Those names are served before the native table is consulted, so no native or extension tool
// can answer them; a name whose service the embedder left nil is refused -32002 by name ("an
// agent service this agent does not provide (its embedder sets no Options.Subagents)"); a
// command's ticket is refused (a service is served only while a tool runs).
//
//   - Every call goes through the gate with the caller's origin-scoped key, like a core tool: a
//     child's start is Required (a card, or the posture), the others are Eligible. The call
//     counts against the ticket's uses and MaxConcurrentCoreCalls, and leaves a receipt.
//   - The embedder is told the call as the core knows it from the ticket (ServiceCall: plugin,
//     tool, call id, the CallOptions' session, agent and workspace), never what the plugin says.
//   - Subagents: the child's tools are the parent's (Subagents.Tools of the call's agent)
//     narrowed by the plugin's filter {allow?, deny?} (Narrow); an allowed name the parent lacks
//     is ErrWiden, refused. Persona (MaxPersona) and prompt are inert text. One tool call starts
//     at most MaxChildren; result and dispose take only the ids of its own live children; the
//     end of the tool call disposes the children it left, and waits for that (ChildDisposeWait
//     each); a start that settles after the end is disposed at once and answered cancelled.
//   - Skills: the core discovers and audits the skills under Skills.Roots (package skills);
//     Manager.SkillsList lists them with the candidates refused and why.
//   - GitReviewScope: the core admits only known metadata queries (package gitscope: merge base,
//     commit list, changed files, current branch), fixes the argument list with hooks, paging and
//     lazy fetch off (GitArgs, GitEnv), bounds the call by gitscope.Deadline and cuts the output at
//     gitscope.MaxOutput; a call without a workspace is refused.
//
// The JS host maps DSH's services onto these names (`src/shims/agent.ts`): `sessions.flush`,
// `subagents.getProvider('spawn')` (a fixed descriptor, fresh context), `subagents.
// startActivation({request: {parent, prompt, agentOptions: {persona, toolFilter, model}}})` with
// its `result` and `dispose()`, `skills.list()`, and an injectable `agents` that offers nothing.
// `subagents.start` (the older form) and every other method refuse by name; a git query is
// `exec.core.call('git_review_scope', {args})`.
package core
