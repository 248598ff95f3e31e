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
// # Files
//
// The files read top-down, each using only what the ones before it define (a deptest check):
// errors, the owner, the change feed, diagnostics, the shim check, storage, the sandbox,
// tiers, builtin modules, the catalog state, the layer, then its work: starting tiers and
// verifying what activates, recording what an activation registered, the lifecycle,
// what hosts report, the call's look-up and lazy activation, reports, reconcile, and New
// and Close.
package owners
