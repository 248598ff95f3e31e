// Package supervisor runs the extension host tiers: one [TierRuntime] per trust tier,
// started lazily on first need, each incarnation a fresh `cwx nodeshim` process (a new
// exec.Cmd and a new go-plugin Client every time) that spawns Node or Bun.
//
// An incarnation is started like this: a private 0700 socket directory, a lifeline pipe on
// the shim's fd 3 (its write end only here, so the shim notices the core dying), the shim
// in a new session (it leads the tier's group), go-plugin without AutoMTLS (the socket's
// folder is checked private before the shim starts and when the core connects:
// ARCHITECTURE.md, “Trust model”), SkipHostEnv, Managed false and the tier's own hclog
// logger; then the payload Channel, the runtime started from core/runtime's launch plan,
// and a core/rpc Peer over the Channel.
//
// The handshake (core/protocol doc.go, “Handshake”) is checked with no test bypass: host/hello must
// name a protocol range containing 1, the runtime kind and version the core launched and
// probed, the launched tier, exactly the pinned builtin modules, the digest of the bundle the
// core materialized and no memory limit (Linux caps memory with RLIMIT_DATA in the shim); then
// host/initialize must be answered {} and host/ready must follow, all within the handshake
// deadline ([DefaultHandshakeTimeout]). Every refusal names its reason and ends with the
// runtime's stderr tail.
//
// Shutdown is bounded: host/shutdown ([DefaultShutdownAnswer] for the answer and the exit),
// then SIGTERM to the runtime's and the shim's process groups, then SIGKILL at
// [DefaultKillAfter]; go-plugin's Client.Kill runs only after the processes are gone, so it
// never blocks on a hung shim.
//
// Keeping a tier alive (ARCHITECTURE.md, “Lifecycles and numbers”): host/ping every
// [DefaultHeartbeat] whose answer must be exactly {} (anything else is a protocol violation);
// [DefaultUnresponsive] unanswered makes the tier Unresponsive (new calls refused NotAvailable
// until a pong restores Ready for that generation); [DefaultHangKill] kills both process
// groups from a timer goroutine that never waits on the writer. An unexpected exit, a
// violation, a heartbeat kill or a failed start is a crash: below the budget
// ([DefaultCrashLimit] in [DefaultCrashWindow]) the next generation starts at once after
// the window's first crash, and after that no sooner than [DefaultRestartBackoff] from the
// start of the generation that ended; the budget's last crash leaves the tier Failed (reason
// and stderr tail) until Retry. Pending calls of an ended incarnation fail NotAvailable ("extension host
// exited: <reason>") and are never replayed. The [Owners] layer is told when each generation
// is ready (it activates through the [Host] it gets) and when it ended, with the sole owner
// whose ext/activate ([Host.Activate]) the death interrupted. An ext/activate unanswered at
// its timeout means the host's event loop is blocked (the host answers within its own,
// shorter bound): Host.Activate kills the incarnation at once, the activation stays
// recorded, and [ExitInfo] says the kill was for a hang (Hung, Blocked); a blocked
// activation attributed to one owner is that plugin's failure and not a crash
// ([ExitInfo.Crash]). A host killed so during the owner layer's activations is never
// reported Ready. Dirty teardowns reported through
// ReportDirtyTeardown ([DefaultDirtyLimit] in [DefaultDirtyWindow]) drain the incarnation's
// peer at once (new calls refused NotAvailable) and restart the host once the peer reports no
// call in flight; that is not a crash. A runtime that ran out of memory under RLIMIT_DATA ends
// with a reason naming the limit. Each tier has its own slot, generation, budget and state; no
// lock spans two tiers.
//
// Each fact about an incarnation is kept in one place. The rpc peer owns the calls in flight
// (its slots; Drain for the planned restart): the supervisor asks it and counts nothing. The
// supervisor keeps which owners' ext/activate is in flight, the one fact the owner layer
// needs to blame a crash during activation, and the owner the host's watchdog last named
// with host/busy (its callback holding the event loop; cleared by a host/busy without an
// owner), and reports both in [ExitInfo] (Activating, Busy); deciding the blame (and what to
// replay) is the owner layer's. Owner states live in core/registry only.
//
// A runtime that exited is reported by its shim, which then waits for the core; the core
// closes it through go-plugin (Client.Kill: the Shutdown call, and the shim exits). A shim
// that did not report is SIGKILLed with its group first, and Client.Kill runs only once it
// is gone, so Kill never blocks on a hung shim or orphans a runtime.
//
// Stop during a start is a planned shutdown, not a failure: a host already through its
// handshake (its owners still activating) gets the same bounded shutdown as a ready one;
// an earlier start is abandoned and its processes killed. Neither is logged as an error:
// go-plugin logs a shim's exit by signal at ERROR, so its logger ([shimLogger]) lowers the
// exit of a planned incarnation, and of one the core killed for not answering, to DEBUG; the
// supervisor's own warning says why. The calls in flight when the heartbeat kills a host fail
// with a [*HangError] (the supervisor's reason), not the text of the broken stream.
//
// All timers go through [Clock] (its comment says why testing/synctest does not replace it);
// deadlines are [Options] fields, shortened by tests, and tests without processes run in a
// testing/synctest bubble.
//
// # Lifecycles and numbers
//
// The bounds below are Go constants. Each `supervisor.Default…` can be overridden per tier through
// `supervisor.Options` (tests shorten them); the others are fixed. Exact bounds are tested on fake
// clocks.
//
// Columns: what, constant, value.
//
//   - handshake, hello to ready: `supervisor.DefaultHandshakeTimeout`, 30 s
//   - go-plugin start of the shim: `supervisor.DefaultStartTimeout`, 10 s
//   - activation, as the core waits: `core.ActivateDeadline`, 6 s (the host's own bound is 5 s)
//   - deactivation, as the core waits: `core.DeactivateDeadline`, 2.5 s (the host's own bound is 2 s)
//   - `tool/call` deadline: `core.ToolCallDeadline`, 120 s
//   - `command/run` deadline: `core.CommandRunDeadline`, 30 s
//   - cancel grace: `rpc.CancelGrace`, 500 ms
//   - heartbeat interval: `supervisor.DefaultHeartbeat`, 3 s
//   - unanswered ping → Unresponsive: `supervisor.DefaultUnresponsive`, 3 s
//   - unanswered ping → kill: `supervisor.DefaultHangKill`, 10 s
//   - one callback holding the host's event loop → `host/busy`: `BUSY_MS` in `nodeshim/jshost/src/running.ts` (checked every `TICK_MS`, 100 ms), 500 ms
//   - crash budget: `supervisor.DefaultCrashLimit` in `supervisor.DefaultCrashWindow`, 3 in 5 min
//   - restart delay: `supervisor.DefaultRestartBackoff`, none after the window's first crash; after that starts are 250 ms apart, counted from the start of the generation that ended
//   - dirty teardowns before a planned restart: `supervisor.DefaultDirtyLimit` in `supervisor.DefaultDirtyWindow`, 2 in 10 min
//   - host/shutdown answer and exit: `supervisor.DefaultShutdownAnswer`, 2 s
//   - SIGKILL, from the start of a stop: `supervisor.DefaultKillAfter`, 3 s
//   - RLIMIT_DATA of the runtime: `runtime.DefaultMemoryLimitBytes` (`config.DefaultMemoryLimitMiB`), 1 GiB
//   - smallest `memory_limit_mib` (measured: start, activate, an 8 MiB call): `config.MinNodeMemoryLimitMiB`, `config.MinBunMemoryLimitMiB` (also for `auto`), 256 MiB, 384 MiB
//   - sweep of the runtime's descendants after it was reaped: `nodeshim.sweepBound`, 1 s
//   - Node's old-generation heap: `--max-old-space-size` in `core/runtime/launch.go`, 256 MiB
//   - rpc join bound when an incarnation ends: `rpc.DefaultJoinTimeout`, 2 s
//   - state generation poll: `plugins.PollInterval`, 1 s
//   - ticket expiry (a backstop; the invocation's end revokes it): `tickets.TTL`, 24 h
//   - `core/call` requests per invocation (the ticket's uses): `core.MaxCoreCalls`, 50
//   - `core/call` requests running at once per invocation: `core.MaxConcurrentCoreCalls`, 4
//   - invalid tickets from one host that end it: `tickets.Burst` in `tickets.BurstWindow`, 8 in 1 min
//
// **Tier states.** `idle` → `starting` → `ready`; `ready` ⇄ `unresponsive` (a pong of the same
// generation restores ready); a crash → `restarting` → `starting`, or `failed` when the budget is
// spent; `stopping` → `stopped`. A tier starts only when a desired plugin needs it: a Manager with
// nothing desired spawns nothing and materializes nothing.
//
// **Heartbeat.** `host/ping` every `DefaultHeartbeat`; the answer MUST be exactly `{}` (anything else
// is a violation). No answer in `DefaultUnresponsive` makes the tier Unresponsive and new calls are
// refused NotAvailable; no answer by `DefaultHangKill` kills both groups from a timer that never
// waits on the writer. The heartbeat has its own request slot, so a host with every slot busy is
// still pinged. The calls in flight when the heartbeat kills a host fail with the supervisor's
// reason, not the broken stream's text: the channel's end reads as a `supervisor.HangError`, and the
// caller is told "the plugin tier was restarted: host/ping unanswered for 10s while `<tool>` was
// running" (a case of HostExited). The kill is logged once, as the supervisor's warning "extension
// host exited"; go-plugin's ERROR line for the killed shim is lowered to DEBUG, as for a planned
// stop.
//
// **Crashes.** An unexpected exit, a violation, a heartbeat kill, a blocked activation (core/owners doc.go, “The owner layer”) or a
// failed start is a crash, except a blocked activation attributed to one owner: that is the plugin's
// failure, which is never replayed (`supervisor.ExitInfo.Crash`).
// Crashes older than `DefaultCrashWindow` are forgotten. Below `DefaultCrashLimit` the next
// generation starts after `DefaultRestartBackoff`; the crash that reaches the limit leaves the tier
// Failed, with its reason and stderr tail, until an explicit retry (`Manager.Retry`, the repl's
// `/host retry`). Calls in flight in the ended incarnation fail NotAvailable ("extension host exited:
// <reason>") and are never replayed.
//
// **Dirty teardown.** Reaching `DefaultDirtyLimit` within `DefaultDirtyWindow` drains the
// incarnation's peer at once (new calls are refused NotAvailable) and restarts the host once the peer
// reports no call in flight. It is a planned restart and does not use the crash budget.
//
// **Calls.** A call that reaches its deadline sends `$/cancel`, fails its caller with ErrTimeout at
// once and keeps its request slot for `rpc.CancelGrace`, so the host is never handed more than
// `rpc.MaxPending` requests. A caller that cancels sends `$/cancel` and is answered Cancelled on the
// host's answer or when the grace ends. A request cancelled before it was written is never sent. Late
// answers are dropped and logged. Each host request runs as its own task with a context that the
// host's `$/cancel` or the incarnation's end cancels; a task that ignores cancellation is abandoned
// `rpc.CancelGrace` later.
//
// **Shutdown** is bounded: `host/shutdown` and `DefaultShutdownAnswer` for the answer and the exit,
// then SIGTERM to the runtime's and the shim's groups, then SIGKILL at `DefaultKillAfter` from the
// start of the stop. A stop during a start is a planned shutdown, not a failure. `Manager.Close`
// stops every tier in parallel.
package supervisor
