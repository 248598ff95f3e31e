// Package nodeshim is the per-tier shim: `cwx nodeshim --tier=plugin|builtin`, re-executed
// by the core with go-plugin's magic cookie (main.go dispatches it before any flag parsing).
//
// The shim serves the shared/proto/shimv1 service over go-plugin and does only process work
// and byte relaying:
//
//   - Start spawns the runtime from the core's launch plan with explicit stdin/stdout/stderr
//     pipes (never the shim's own descriptors, which would keep go-plugin from seeing the
//     shim exit), in a process group the runtime leads, with a SIGKILL death signal set from
//     a goroutine locked to its OS thread (the signal fires when the forking thread exits, so
//     that thread lives until the runtime has been reaped), and with RLIMIT_DATA.
//   - RLIMIT_DATA (default 1 GiB, clamped to an inherited lower hard limit) is set on the
//     shim itself just before the spawn, so the runtime is born with it and no allocation
//     escapes it; prlimit(2) after the spawn would leave a window in which the runtime runs
//     unlimited. The shim's own data mappings are a few tens of MiB (payload parts are at
//     most 256 KiB), far below any usable limit.
//   - The runtime's environment is the plan's minus go-plugin's cookie and PLUGIN_*
//     variables, plus CWX_HOST_PARENT_PID=<shim pid>.
//   - The Channel relays CWX1 frames to and from gRPC in order, checking framing only
//     (magic, length <= 32 MiB before any allocation). A violation kills the runtime's group
//     and is reported in the Exit event with its reason.
//   - The runtime's stderr is logged line by line through hclog as plain text (never
//     forwarded raw: go-plugin parses the shim's stderr as hclog JSON) and kept in an 8 KiB
//     ring for the exit report and Stats.
//   - Lifeline: fd 3 is a pipe whose write end only the core holds; EOF (the core died)
//     kills the runtime's group and exits the shim. SIGTERM terminates the runtime's group,
//     then kills it, reports and exits.
//
// After the runtime's exit has been reported the shim exits when the core closes the
// connection, or on its own shortly after.
package nodeshim
