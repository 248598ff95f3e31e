// Package owners is cwx's owner layer: the owners of the plugins a user enabled and trusted,
// their activation, replay and revocation, the tiers whose hosts they live in, the catalog
// that stands in for plugins not yet needed, and the answers to what hosts report.
//
// Package core keeps the facade (Manager, Options, the result and error types) and the call
// path (validate → hooks → gate → send → receipts); it builds against this package's door
// and nothing behind it:
//
//   - [Layer.Lookup] and [Layer.LookupRunnable] take a call's snapshot, a [Target]: the
//     registry's Target and the [Owner] it names, the plugin's current one, with its receipt
//     checked in memory.
//   - [Owner.Send] is the one liveness check at send time: the owner admits a request
//     unless it ended ([ErrOwnerEnded]), counts it in flight so revocation waits for it, and
//     its end cancels the request ([Owner.Bound]) with an [EndCause] that says why.
//   - [Layer.Changes] is the change feed of the live catalog; [Layer.Demand] activates what a
//     call needs before its look-up (lazy activation).
//   - [Requests] is the other way round: the host requests the call path answers (core/call,
//     user/ask) and the end of an incarnation, whose tickets the call path revokes.
//   - The fetch proxy's requests (net/fetch, net/write, net/read, net/close) are answered by
//     the layer's own core/fetchproxy.Proxy for the plugin's current owner, live in that
//     incarnation of that host, under config.toml's grants as the last Reconcile read them;
//     its exchanges end with the owner, with the incarnation (HostExited) and at Close.
//     Options.Fetch.Invocation, the core's, ties a request's ticket to its invocation.
//
// This package does not import core (a deptest rule), so the call path can only use the
// owner layer through the door above.
//
// # Lifecycle
//
// [Layer.Reconcile] makes the live owners match the desired plugins (enabled ∧ trusted ∧
// receipt valid, read afresh from state.json and config.toml, plus the builtin modules with
// work, [BuiltinSource]): it revokes what is no longer desired, re-activates (under a new
// generation) exactly the plugins whose closure hash or config digest changed, starts a tier
// only when a desired plugin needs it and activates the missing owners in parallel, so a slow
// or broken plugin never delays another. After the first Reconcile the layer polls the state
// generation every [plugins.PollInterval], so `cwx plugin disable` in another terminal
// revokes the plugin in a running process.
//
// Revocation is synchronous: the owner's registrations are dropped at once, its calls in
// flight are sent `$/cancel` and resolve Cancelled("extension was revoked") within
// [rpc.CancelGrace], then the host is asked to deactivate it within [DeactivateDeadline]. An
// answer other than {disposed: true, leaked: []} is a dirty teardown: recorded in the
// plugin's diagnostics and reported to the supervisor, which restarts the host after
// [supervisor.DefaultDirtyLimit] in [supervisor.DefaultDirtyWindow]. `ext/faulted` marks the
// owner Faulted, drops its registrations and fails its calls NotAvailable; a faulted or failed
// plugin is not activated again until its bytes or config change or [Layer.Reload] is called.
//
// After a host restart every remaining desired owner is replayed with a fresh generation and
// token; the sole owner that was activating when the host died is failed instead. When
// several were activating together (so no single one can be blamed), they become the tier's
// suspects ([TierStatus.Suspects]) and are replayed one at a time after the others, so the
// next crash names the culprit. The same holds for a host killed because it stopped answering
// during activation (an apply that never yields blocks the whole host: an ext/activate
// unanswered at [ActivateDeadline], or a heartbeat kill): the culprit fails "apply did not
// finish within 5s and blocked the host", every other plugin comes back, and the search
// counts as one crash. A host killed for a hang whose watchdog named the callback that held
// its event loop (host/busy) is blamed on that callback's owner. The blame is decided in one
// function (blameLocked) and kept for `cwx host status` ([TierStatus.LastBlame]).
//
// While another plugin's activation is in flight on the same incarnation, a call first pings
// the host ([Layer.LookupRunnable]): an answer means the host's one thread runs; a host that
// ends under the ping never received the call, which is looked up again on the next
// incarnation.
//
// # Hosts
//
// A plugin lives in one host, named by a [protocol.HostKey]: its tier's shared host, or its
// own when config.toml isolates it (`isolation = "process"`, config.Config.Isolated;
// hostFor decides, [Layer.HostOf] reports). The layer keeps one tierState per host (its
// runtime, its newest generations, its suspects and last blame) and one supervisor
// TierRuntime per host, created on first need; a plugin's own host works in the plugin's
// data folder and is sandboxed to that folder and the plugin's staged copies. Owners,
// registrations and tickets belong to one host: every callback checks the host it came from
// (ownerOnHost), and the registry refuses an owner ref on another host. Reconcile moves an
// owner whose plugin changed hosts (revoked, activated in the other), stops an own host no
// plugin needs (stopUnneeded), and starts the plugin tier's hosts in parallel, then the
// builtin tier's (startHosts). An own host's end is blamed on its plugin.
//
// # Lazy activation
//
// After each successful activation the plugin's registrations are written to the catalog
// under the key of its bytes, config and host bundle. A lazy layer (Options.Lazy) then
// activates, in Reconcile, only the desired plugins the catalog cannot stand in for: those
// with no entry for their key, and those whose entry holds a pre-execute hook (their hooks
// must see every call). The others are deferred: [Layer.CachedTools] and
// [Layer.CachedCommands] list them from their entries, and the first call to one of their
// names activates the plugin ([Layer.Demand]), with every hook holder. [Layer.Advertise]
// defers every plugin with an entry, hooks or not, for a listing. A plugin that holds a hook
// and has no Active owner is reported by [Layer.DownHolders], and the call path denies the
// calls its hooks would judge.
//
// # One fact, one place
//
// An owner's state is the registry's (the layer keeps no copy); the calls in flight are
// counted by the rpc peer per incarnation (its slots) and by the owner for its own
// revocation, nothing else; the crashes of a tier are the supervisor's windowed count (its
// crash budget), reported as they are; which ext/activate was in flight when a host died,
// and whose callback the host's watchdog named, are the supervisor's observations. The layer
// keeps one record per tier: its runtime, the newest incarnations seen and ended, the
// suspects and the last blame.
//
// # The owner layer
//
// What follows moves with the owner layer; `core` keeps the facade and the call path.
//
// **Blame.** What ends or blocks a host is blamed on a plugin only on evidence; anything else is
// unattributed (the tier's crash budget, and replay with its suspects below, handle it).
//
//   - *An attempt to end the host.* Before any plugin loads the JS host replaces `process.exit`,
//     `process.reallyExit`, `process.abort`, `process.kill` and `process._kill`
//     (`nodeshim/jshost/src/guard.ts`): from plugin code, exiting, aborting, and any signal but 0 to
//     the host's own pid, its group, 0, -1, or the shim (the parent) and its group throw
//     `HostEndRefused`. The attempt is reported at once, caught or not, as the owner's fault
//     ("tried to end the extension host: …"; the owner through async context): `ext/faulted` for an
//     active owner, the activation's failure for one activating; outside every owner it is a log
//     line. The host lives on. A plugin that ends the host another way (a child process that
//     signals it, closing fd 3) is not seen: that end is unattributed.
//   - *A callback that never returns.* The host notes the owner in a shared word before it calls
//     plugin code and restores the previous note when the call returns
//     (`nodeshim/jshost/src/running.ts`): `apply`, a tool's `execute`, a command's `handler`, a
//     hook, and every callback of `setTimeout`, `setInterval`, `setImmediate` (the globals, `node:timers`
//     and the `timer` service), `queueMicrotask` and `process.nextTick` scheduled inside an owner's
//     async context. The word is a `SharedArrayBuffer` the host's watchdog thread (the one that
//     watches the parent) reads every 100 ms; when one callback has held the event loop for
//     500 ms it writes `host/busy {owner}` straight onto fd 4 (one write under `PIPE_BUF`, under a
//     lock word the host's own writer holds while its stream has bytes queued), and the host sends
//     `host/busy {}` when that callback returns after all. The supervisor keeps the last note per
//     incarnation (`ExitInfo.Busy`); a kill for not answering (the heartbeat, or a blocked
//     activation) with a note outstanding names the plugin in its reason and is blamed on that
//     owner, active or activating: it fails ("a callback of the plugin did not return and blocked the
//     host: …") and is not replayed, so the next incarnation runs without it; the kill counts as a
//     crash. Code the host does not call (a promise's continuation, an I/O callback, a listener of
//     an emitter the host does not drive) carries no note of its own: a hang there is
//     unattributed. Noting costs two atomic stores per callback and no frame; `host/busy` is sent only
//     for a callback that held the loop for 500 ms.
//   - *An uncaught exception or rejection* is the fault of the owner of the code that threw (async
//     context, else the plugin folder in its stack), as before; an `EventEmitter` listener's throw is
//     its emitter's caller's: the owner whose callback emitted.
//   - *Running out of memory* ends the host on Node (V8's heap limit, or `RLIMIT_DATA`):
//     unattributed, with the memory reason. On Bun an allocation that fails is a `RangeError` in the
//     plugin's code, so it is that owner's fault.
//
// The blame is logged ("host end blamed on a plugin", "plugin faulted"), kept in the plugin's
// diagnostics, and the newest one per tier is `last_blame` in `cwx host status` ("plugin `P`:
// reason"). Plugins share one process, so the note says whose callback ran, not who caused it: a
// plugin that patches a shared built-in runs its code inside another plugin's callbacks, under
// that plugin's note (ARCHITECTURE.md, “Trust model”).
//
// **Replay.** After a restart every remaining desired owner is activated again under a new
// generation, a new token and new handles. The sole owner whose `ext/activate` was in flight when the
// host died is failed instead of replayed. When several were activating together, none is blamed:
// they are replayed one at a time after the others, so the next crash names the culprit. A host the
// core killed for not answering (a blocked activation, or a heartbeat kill) during activation is
// handled the same way, and the culprit fails "apply did not finish within 5s and blocked the host";
// the kill that left several suspects is the one crash counted, the one that names the culprit is
// not.
//
// **Calls beside an activation.** A JS host runs its plugins on one thread, so while another
// plugin's activation is in flight on the same incarnation the host may be blocked for good. A call
// made then first pings the host (`Layer.LookupRunnable`, lookup.go): an answer means the thread runs and the call is
// sent; a host that ends under the ping never received the call, which waits (at most three
// activation deadlines) for its plugin to be live on the next incarnation and is sent there. With no
// activation in flight beside it a call costs one look at the owner table and no ping.
//
// **Activation.** The core sends `ext/activate` and waits `ActivateDeadline`; the host gives `apply`
// 5 s and answers `failed` when it does not settle. Activation of different plugins runs in parallel,
// so a slow or broken plugin never delays another. An `ext/activate` still unanswered at
// `ActivateDeadline` means the host's event loop is blocked (an `apply` that never yields stops the
// whole host, its timer included): the core kills the incarnation at once (`supervisor.Host.Activate`)
// instead of failing the owner, and an incarnation killed during the activations of its start is
// never reported Ready. A plugin whose activation failed or that faulted is not activated again
// until its bytes or its config change or it is reloaded.
//
// **Revocation** (disable, untrust, changed bytes or config, removal) is synchronous: the owner's
// registrations are dropped at once, its calls in flight are sent `$/cancel` and resolve Cancelled
// ("extension was revoked") within `rpc.CancelGrace`, then the host is asked to deactivate it within
// `DeactivateDeadline`. `ext/faulted` marks the owner Faulted, drops its registrations and fails its
// calls NotAvailable.
//
// **Eager and lazy.** `Options.Lazy` says what `Reconcile` activates. The zero value is eager.
//
// Columns: Manager, `Reconcile` activates, used by.
//
//   - eager (the default): every desired plugin, an embedding program, `cwx repl`, `cwx serve --mcp`, `cwx prompt show`, `cwx plugin …`, `cwx host status`
//   - lazy (`Options.Lazy`): the desired plugins with no valid entry, and those whose entry holds a pre-execute hook (builtin modules included), `cwx tool call`, `cwx command run`, `cwx tool list`, `cwx command list`
//
// Long-lived processes stay eager: they want warm hosts, and `Changes`, the MCP server's listings
// and the prompt sections complete from the start, and they pay the activations once. A one-shot
// command ends after one call, so it activates only what that call needs. An embedder that wants
// the one-shot behaviour sets `Options.Lazy`.
//
// `Manager.Advertise` is the reconcile of a listing: it activates only the desired plugins with no
// valid entry (a listing needs no hook) and defers every other one. With every enabled plugin
// cached it creates no tier and starts no process: no shim, no runtime, no runtime probe. A lazy
// Manager makes the shim check of `Open` (core doc.go, “Embedding”) at its first tier start instead.
//
// **Listing.** `Tools` and `Commands` list, after the native and live ones, the tools and commands
// of the deferred plugins that have no owner in this Manager, from their entries, with `Cached`
// set (the CLI's listings show `cached` or `live`). A name a live owner or a native holds is not
// listed from the catalog; when two entries list one name, the plugin the claim table gives it to
// is listed. `PromptSections` lists live sections only: a deferred plugin contributes its
// sections once a call has activated it (the catalog keeps them, and `cwx prompt show` is eager).
//
// **Calling on demand.** `CallTool` and `RunCommand` of a lazy Manager (or after `Advertise`)
// first make the call's plugins live (`Layer.Demand`): the deferred plugin whose entry lists the
// name, when no live owner has it; every plugin whose entry holds a pre-execute hook, and every
// builtin module that holds hooks; every desired plugin with no entry, which may hold one. They
// wait until each is settled (Active, Failed or Faulted), at most `core.lazyWait` (12 s, twice
// `ActivateDeadline`), so a hook sees every one-shot call and still denies. A plugin activated for
// a call is not deferred again by that Manager; the others stay cached until a call needs them.
// When the plugin activated for a name does not register it, its activation has replaced its
// entry, and the name is resolved again: another deferred entry that lists it is activated in turn
// (the name moved; a warning names both plugins), and when none does the call fails with a
// `NotLiveError` naming the plugin, "whose catalog entry listed it, but which no longer registers
// it (the entry is replaced)". At most `core.maxResolve` (4) plugins are activated for one name.
//
// # Per-plugin hosts
//
// By default every plugin of the plugin tier shares one host (one shim, one runtime). `isolation =
// "process"` (`[plugins."<id>"]`, or `[extension_host]` for every plugin) gives a plugin a host of
// its own: its own `cwx nodeshim` under go-plugin, its own runtime, bubblewrap sandbox, heartbeat,
// crash budget, generations and replay. A host is named by `protocol.HostKey` (its tier and, for a
// plugin's own host, the plugin id as `Group`); the registry, the supervisor's `Owners` callbacks, the
// owner layer's per-host state, tickets and the call path are keyed by it, so an owner, its
// registrations and every ticket minted for it belong to exactly one host, and a frame from one host
// never reaches an owner of another (`ownerOnHost` checks the host as well as the token and the
// generation). What each kind of host guarantees:
//
//	| | shared host (default) | a plugin's own host |
//	|---|---|---|
//	| a crash, hang or SIGSTOP | takes down, or stalls, every plugin of the host | only that plugin |
//	| crash budget, blame | shared, attributed by activation, watchdog and suspects | its own; every end is its plugin's |
//	| what a compromised plugin sees | the other plugins' frames in that process (the hardening closes the vectors it knows) | only its own frames |
//	| files (sandboxed) | every plugin's staged copies read-only, the tier's data folder read-write | its own staged copies read-only, its own data folder read-write |
//	| cost | one host for all | one shim and runtime per plugin (`cwx bench --isolated N`, BENCHMARKS.md) |
//
// Reconcile starts the plugin tier's hosts in parallel (each plugin's activation on its own
// goroutine), then the builtin tier's; a one-shot call starts only the hosts its tool and the hook
// holders it needs live in. A config rewrite that moves a plugin between the shared host and its own
// revokes its owner and activates it in the other; an own host no plugin needs is stopped. Hook
// holders in several hosts are asked in parallel under one batch deadline; an own host that is
// restarting leaves its plugin's hooks not live, which blocks the calls they would judge (ARCHITECTURE.md,
// “Pre-execute hooks”). `cwx host status` and the repl's `/host` list every host with its plugins and PSS;
// `/host kill <plugin>` names the tier-mates a shared host's kill takes down. The builtin tier stays
// one host. A grant (core/grants doc.go, “Grants”) makes a plugin isolated by force.
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
//     ([MaxStorageBytes]) per plugin.
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
// # Why a name is not live
//
// Every look-up that finds no live tool or command fails with one `NotLiveError` (absent.go),
// the single source of the answer every surface prints (the CLI's `notLiveAnswer` words it and
// adds the next cwx command): the plugin the name belongs to (the claim table's holder among the
// enabled plugins, else an installed plugin whose record claims it), its `State` (one of the
// `Absent*` words: failed, faulted, activating, stopped, not activated, disabled, not trusted,
// needs review, dev session ended, staged copy changed) with `Why` as a clause, and `Near`: the
// known names (live, claimed, native) it nearly is, folded first, then within a small edit
// distance. When the name differs from its plugin's only in spelling, the spelling is the answer.
//
// # Files
//
// The files read top-down, each using only what the ones before it define (a deptest check):
// errors, the owner, the change feed, diagnostics, the shim check, storage, the sandbox,
// tiers, builtin modules, the catalog state, the layer, then its work: starting tiers and
// verifying what activates, recording what an activation registered, why a name is not live,
// the lifecycle,
// what hosts report, the call's look-up and lazy activation, reports, reconcile, and New
// and Close.
package owners
