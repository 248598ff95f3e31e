//go:build !linux

package runtime

import (
	"context"
	"os/exec"
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
