//go:build !linux

package runtime

import (
	"context"
	"os/exec"
	"strconv"
)

// dataLimitedCommand is probeCommand, run under RLIMIT_DATA = limit (when non-zero) through
// ulimitArgv: without prlimit(2) the cap can only be set before the exec, which is also how
// the shim caps the runtime (its exec helper sets the limit, then execs the runtime).
func dataLimitedCommand(ctx context.Context, limit uint64, path string, args ...string) (*exec.Cmd, *capped, *capped) {
	if limit == 0 {
		return probeCommand(ctx, path, args...)
	}
	argv := ulimitArgv(limit, append([]string{path}, args...))
	return probeCommand(ctx, argv[0], argv[1:]...)
}

// applyDataLimit does nothing: dataLimitedCommand set the cap before the exec.
func applyDataLimit(int, uint64) error { return nil }

// ulimitArgv returns an argv that runs argv under RLIMIT_DATA = limit (rounded down to
// KiB, soft and hard) set by /bin/sh's ulimit before it execs argv, so the process is born
// capped. It is the probe's mechanism where prlimit(2) does not exist.
func ulimitArgv(limit uint64, argv []string) []string {
	const script = `ulimit -d "$1" || exit 125; shift; exec "$@"`
	return append([]string{"/bin/sh", "-c", script, "sh", strconv.FormatUint(limit>>10, 10)}, argv...)
}
