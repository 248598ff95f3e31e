// Package runtime finds the JavaScript runtime (Node.js or Bun) that runs the extension host
// and says how to launch it.
//
// Resolution follows ARCHITECTURE.md, “Runtimes”. The requested kind is "node" (the default),
// "bun" or "auto" (Bun first, then Node, with the reason Bun was not used recorded in
// [Resolution.Fallback]). A configured path is the only candidate for its runtime: when it
// fails, resolution fails with its reason rather than searching PATH. Otherwise every PATH
// entry is tried in order; relative entries, folders inside a node_modules folder and the
// working directory (and anything under it) are skipped without running anything, unless the
// working directory contains the user's home directory (a shell started in / or /home would
// otherwise find nothing). Each remaining candidate's --version is run with an empty
// environment, in its own process group, under a timeout. The first at or above its floor wins
// ([NodeFloor], [BunFloor]). Every rejected candidate is recorded with its reason; when none
// is usable the error wraps [ErrNoRuntime] and carries the exact fix.
//
// For Node the resolver also probes, once per binary, which of --no-experimental-sqlite and
// --no-experimental-ffi the binary accepts; [Runtime.LaunchPlan] adds the accepted ones to
// the fixed flags. The launch environment is built from an allow-list of the user's
// environment plus fixed runtime variables; the shim adds CWX_HOST_PARENT_PID itself.
//
// [CheckMemoryCap] and [CheckBubblewrap] are the probes `cwx doctor` reports. The memory
// probe runs the chosen runtime twice with a script that allocates 16 MiB and then the cap
// plus 256 MiB: without a cap both must succeed (the control), and with RLIMIT_DATA set to
// the configured cap the big allocation must fail. The cap is applied with prlimit(2) to the
// started runtime before the script is released through stdin; the shim's exec helper
// instead sets it on itself and then execs the runtime, and both are the same kernel
// accounting, so the probe tells whether the shim's cap holds.
//
// The plugin tier's sandbox (ARCHITECTURE.md, “Sandbox”): [ResolveBwrap] finds bubblewrap
// like a runtime (a configured path, else PATH outside the working directory); [ProbeSandbox]
// runs the runtime's --version inside the whole profile, once per process, and [CheckSandbox]
// is that probe as `cwx doctor` reports it, with [SandboxFix]; [Profile] builds the bubblewrap
// argv (namespaces, --cap-drop ALL, the read-only /proc surface of [KernelSurface], the
// read-only trees, the one writable data folder, the masks, the seccomp descriptor and, for a
// [SandboxUser], the drop to it inside) and [LaunchPlan.Wrap] puts it in front of the runtime's
// argv, marking the plan with [SandboxEnv] for the shim and attaching [Filter]'s program.
package runtime
