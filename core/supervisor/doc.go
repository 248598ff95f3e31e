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
// The handshake (ARCHITECTURE.md, “Handshake”) is checked with no test bypass: host/hello must
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
package supervisor
