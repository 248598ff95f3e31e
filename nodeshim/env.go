package nodeshim

import (
	"strconv"
	"strings"

	"github.com/cwx-dev/cwx/shared"
)

// runtimeEnv returns the plan's environment without go-plugin's cookie and PLUGIN_*
// variables (and without a stale parent pid), plus CWX_HOST_PARENT_PID=shimPID. A sandboxed
// runtime gets no parent pid: in its PID namespace the shim is invisible and the host's
// watchdog would kill it, so it relies on its channel's EOF and bubblewrap's
// --die-with-parent instead (ARCHITECTURE.md, “Sandbox”).
func runtimeEnv(plan []string, shimPID int) []string {
	out := make([]string, 0, len(plan)+1)
	for _, kv := range plan {
		k, _, _ := strings.Cut(kv, "=")
		if k == shared.CookieKey || strings.HasPrefix(k, "PLUGIN_") || k == shared.ParentPIDEnv {
			continue
		}
		out = append(out, kv)
	}
	if sandboxed(plan) {
		return out
	}
	return append(out, shared.ParentPIDEnv+"="+strconv.Itoa(shimPID))
}

// jitReservationEnv is the JavaScriptCore option (read by Bun, inert for Node) that sizes the
// address range JSC reserves for JIT code at startup.
const jitReservationEnv = "BUN_JSC_jitMemoryReservationSize"

// withJITReservation sizes JavaScriptCore's JIT reservation to 1/64 of the runtime's
// RLIMIT_DATA unless the plan sets it. JSC reserves 1 GiB of writable address space for JIT
// code by default; RLIMIT_DATA counts that reservation, so under the default 1 GiB limit it
// fails and Bun silently runs without a JIT, 20 to 50 times slower on hot loops (a 1 MiB
// tool/call took about 90 ms instead of 15). The reservation comes out of the same budget
// as the heap, and a 32 MiB frame each way already brings Bun within 70 MiB of a 1 GiB limit
// (its heap grows in 128 MiB steps), so the share is small: 16 MiB of JIT code at 1 GiB is far
// more than a host compiles, and JSC stops compiling rather than failing when it is full.
// Processes a plugin starts inherit both the limit and this variable.
func withJITReservation(env []string, limit uint64) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, jitReservationEnv+"=") {
			return env
		}
	}
	size := min(limit/64, 1<<30)
	return append(env[:len(env):len(env)], jitReservationEnv+"="+strconv.FormatUint(size, 10))
}
