// Package nodeshim is the per-tier shim: `cwx nodeshim --tier=plugin|builtin`, re-executed
// by the core with go-plugin's magic cookie (main.go dispatches it before any flag parsing).
//
// The shim serves the shared/proto/shimv1 service over go-plugin and does only process work
// and byte relaying:
//
//   - Start spawns the runtime from the core's launch plan through the exec helper (below),
//     in a process group the runtime leads, with a SIGKILL death signal set from a goroutine
//     locked to its OS thread (the signal fires when the forking thread exits, so that
//     thread lives until the runtime has been reaped). The lock is not held across the
//     fork: Start reserves the spawn, spawns, then publishes the runtime, and a shutdown
//     waits for a spawn under way so it never misses the runtime.
//   - The runtime's descriptors (ARCHITECTURE.md, “Processes”): fd 0 is /dev/null, fd 1 and
//     fd 2 are one capture pipe, the channel is fd 3 (frames in) and fd 4 (frames out). What
//     a plugin writes to fd 1, even with fs.writeSync(1, …), becomes a log line and can
//     never corrupt or forge a frame. None of them is the shim's own (which would keep
//     go-plugin from seeing the shim exit); the shim's fd 3 is its lifeline, a different
//     pipe the runtime never inherits.
//   - Exec helper: the shim starts its own binary as `cwx nodeshim exec-helper <limit> --
//     <argv>` ([RunExecHelper]), which sets RLIMIT_DATA (default [DefaultMemoryLimit],
//     clamped to an inherited lower hard limit) on itself and execs the runtime in its
//     place: the runtime is born with the limit, and the shim never runs under it (a low
//     limit would kill the Go runtime of the shim). Where util-linux's `/usr/bin/prlimit` is
//     installed the shim starts `prlimit --data=<limit>:<limit> -- <argv>` instead, which does
//     the same in ~3 ms against the helper's ~20 ms (a Go start), unless a sandboxed plan meets
//     a controlling terminal, which only the helper gives up (launcher, prlimitLauncher).
//   - Sandbox: a plan marked CWX_HOST_SANDBOX=bwrap has bubblewrap's argv in front of the
//     runtime's (ARCHITECTURE.md, “Sandbox”). The exec helper (or prlimit) execs bubblewrap, so the limit
//     binds it and the runtime inside; the shim stays outside, reads the namespace init's pid
//     from bubblewrap's --info-fd (fd 5), takes its child as the runtime (real pid, group and
//     RSS for Start, Stats and signals), gives the runtime no parent pid to watch, and turns
//     bubblewrap's exit status 128+N back into signal N. It hands bubblewrap the plan's
//     seccomp filter on fd 6. When the core runs as root, bubblewrap starts this binary
//     again inside, as `cwx nodeshim drop-privileges <uid>:<gid> <dir> -- <argv>`
//     ([RunDropPrivileges]), which drops to the sandbox uid, keeping no capability, and execs
//     the runtime; go-plugin's cookie is kept for it.
//   - Descendants: the shim is a child subreaper (PR_SET_CHILD_SUBREAPER), so whatever a
//     plugin starts that leaves the runtime's group (detached, setsid, a double fork)
//     re-parents to the shim, not to init. Once the runtime has been reaped, for any reason,
//     the shim SIGKILLs every descendant it finds in /proc and reaps them, round after round
//     until none is left, within sweepBound; the exit report and the shim's own exit wait
//     for that sweep. SIGPIPE is caught so that a broken stderr (the core is gone) does not
//     end the shim before it.
//   - The runtime's environment is the plan's minus go-plugin's cookie and PLUGIN_*
//     variables, plus CWX_HOST_PARENT_PID=<shim pid>.
//   - The Channel relays CWX1 frames to and from gRPC in order, checking framing only (magic,
//     length <= frame.MaxPayload before any allocation). A violation kills the runtime's group
//     and is reported in the Exit event with its reason.
//   - The runtime's fd 1 and fd 2 are logged line by line through hclog as plain text (never
//     forwarded raw: go-plugin parses the shim's stderr as hclog JSON) and kept in a ring of
//     stderrTailSize bytes for the exit report and Stats.
//   - Lifeline: the shim's fd 3 is a pipe whose write end only the core holds; EOF (the
//     core died) kills the runtime's group and exits the shim. SIGTERM terminates the
//     runtime's group, then kills it, reports and exits.
//
// After the runtime's exit has been reported the shim exits when the core closes the
// connection, or on its own shortly after.
//
// A measuring aid: with CWX_SHIM_CPUPROFILE=<prefix> in the core's environment (the core
// passes it on), every shim writes a Go CPU profile to <prefix>.<tier>.<pid> at its orderly
// exit (BENCHMARKS.md, “AutoMTLS on and off”).
//
// One case no user-space design covers: `kill -9` of the shim itself. The runtime dies with
// it (its death signal), but the shim's sweep never runs, so a process that had already left
// the runtime's group re-parents to the next subreaper or to init and survives. Only a
// kernel-side container (a cgroup the core owns, or a PID namespace) would end it.
//
// # Exit
//
// The shim has one way out, its shutdown (shutdown.go). Four triggers feed it: the core
// closing the connection (terminate the runtime, exit 0), the lifeline closing (kill the
// runtime's group at once, exit 3), SIGTERM (terminate, give the Exit event a grace to
// reach the core, exit 143) and an exit report the core leaves unanswered for a grace (kill,
// exit 0). The first trigger decides the exit code and the cleanup; later ones change
// nothing, except that the lifeline's kill always happens at once. After the cleanup the
// shutdown waits, bounded, for the relay and stderr goroutines, and Main returns the code to
// main.go's os.Exit: nothing in this package ends the process itself.
//
// # Platforms
//
// As ARCHITECTURE.md, “Platforms”, states: linux/amd64 is tested, and everything above holds
// there. darwin/arm64 and darwin/amd64 build and vet (`GOOS=darwin go vet ./...`) but are
// not tested. There (proc_other.go) the runtime gets no death signal, so the lifeline alone
// ends the tree when the core dies, and a shim killed outright leaves the runtime to notice
// fd 3 closing. There is no subreaper: only the runtime's group is killed, and a process a
// plugin moved out of it (detached, setsid) survives the host. The exec helper sets
// RLIMIT_DATA the same way, but whether that kernel enforces it is unmeasured (`cwx doctor`
// checks it, setting the limit with the shell's `ulimit -d` before the exec, since there is
// no prlimit(2)). The runtime's pipes keep the system's size (no F_SETPIPE_SZ), and Stats
// reports RSS 0 (no /proc).
//
// # Process groups and the lifeline
//
// The core starts the shim in a new session (`Setsid`), so the shim leads the
// tier's group. The shim starts the runtime in a new process group that the runtime leads
// (`Setpgid`), and reports that group to the core. Consequences:
//
//   - signalling the runtime's group reaches Node or Bun and every process a plugin started that stayed
//     in the group, and never the shim, which stays alive to report the exit and its cause;
//   - when the core stops a tier the hard way, it signals the runtime's group first and then the
//     shim's;
//   - the JS host, when its channel input (fd 3) ends, kills its own group (it leads it) and exits;
//   - a process a plugin moves out of the group (`detached: true`, `setsid`, a double fork) re-parents
//     to the shim, a child subreaper (`PR_SET_CHILD_SUBREAPER`), when its parent dies. Once the
//     runtime has been reaped, for any reason (stop, planned restart, crash, the core killed), the
//     shim SIGKILLs every descendant it finds in `/proc` and reaps it, round after round until none
//     is left (bounded by `nodeshim.sweepBound`, 1 s; measured, the last one is gone within 10 ms of
//     the runtime), before it reports the exit or exits. The one case no user-space design covers is
//     `kill -9` of the shim itself: the runtime dies by its death signal, but nothing sweeps, and a
//     process already outside the group survives (only a cgroup or a PID namespace would end it).
//
// The core passes the read end of a pipe as the shim's fd 3 (`shared.LifelineFD`,
// announced by `shared.LifelineEnv`) and keeps the only write end. EOF on it means the core is gone:
// the shim kills the runtime's group and exits. On Linux the runtime also gets a `SIGKILL` death
// signal tied to the shim's spawning thread, and the JS host runs a watchdog thread that kills its
// group when its parent (the pid in `shared.ParentPIDEnv`, `CWX_HOST_PARENT_PID`) is gone. Together
// these MUST leave no runtime behind when the core or the shim dies in any way.
//
// # The MCP servers' keeper
//
// The same binary keeps each stdio MCP server the core runs (core/mcpclient):
// `cwx nodeshim keep -- <argv>` ([RunKeeper]), started by the core as the leader of a new
// process group with the server's stdin, stdout and stderr and a lifeline as fd 3. The keeper
// becomes a child subreaper, runs argv as its child in its group (with a SIGKILL death
// signal tied to the keeper's thread on Linux) and lets go of the stream. When the lifeline
// reaches EOF or a SIGTERM comes, it sweeps (SIGKILLs and reaps every descendant, as above,
// bounded by `sweepBound`) and exits; when the server exits first, it sweeps what the server
// left and exits with the server's status. So a server's descendants, even those that left
// its group or session, end with it and with the core. The case it does not cover is the
// tiers' one: `kill -9` of the keeper itself.
//
// # What the shim does
//
// **The shim is thin.** It serves the gRPC service of `shared/proto/shimv1`: one `Channel` stream of
// payloads, and the control calls `Start` (exactly once), `Signal` and `Stats`, each on its own
// HTTP/2 stream so none waits behind a large payload. It MUST NOT parse JSON-RPC and MUST NOT decide
// anything. It:
//
//  1. spawns the runtime from the core's `runtime.LaunchPlan` (argv, environment, working directory,
//     memory limit) with stdin on `/dev/null`, fd 1 and fd 2 on one capture pipe, and the channel on
//     two pipes of its own: fd 3 (frames to the runtime) and fd 4 (frames from it), so nothing a
//     plugin writes to fd 1 (even `fs.writeSync(1, …)`) can corrupt or forge a frame; the shim's own
//     fd 3 (the lifeline) is a different pipe the runtime never inherits;
//  2. spawns it through util-linux's prlimit or its exec helper (its own binary as `cwx nodeshim
//     exec-helper`), either of which sets `RLIMIT_DATA` on itself and execs the runtime in its place, so the runtime is born with the
//     limit (setting it after the spawn would leave a window without a cap) and the shim never runs
//     under it (a low limit would kill the Go shim);
//  3. relays frames in order: CWX1 frames from the runtime's fd 4 become gRPC messages carrying the
//     payload, split into parts of at most `shared.PartSize` (256 KiB); messages from the core become
//     CWX1 frames on the runtime's fd 3;
//  4. checks framing only (magic, and the announced length against `frame.MaxPayload` before it
//     allocates); a framing violation kills the runtime's group and is reported as the exit reason;
//  5. logs the runtime's fd 1 and fd 2 line by line through hclog as plain text (go-plugin reads the shim's
//     own stderr as hclog JSON, so runtime output is never forwarded raw) and keeps its last 8 KiB for
//     the exit report and `Stats`;
//  6. reports the runtime's exit (code, signal, reason, stderr tail) as the last event on the Channel,
//     then waits for the core to close the connection, exiting on its own if the core does not.
//
// The shim's exit has one owner (`nodeshim/shutdown.go`): the lifeline, SIGTERM, the core closing the
// connection and the grace after the exit report each trigger it, the first trigger decides the exit
// code (0 for a normal end, 3 when the lifeline closed, 143 after SIGTERM) and the cleanup, and
// `Main` returns that code to `main.go`, the only caller of `os.Exit`. Starting the runtime reserves
// the slot under the shim's lock and forks without holding it.
package nodeshim
