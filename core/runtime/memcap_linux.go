package runtime

import (
	"context"
	"fmt"
	"os/exec"

	"golang.org/x/sys/unix"
)

// dataLimitedCommand is probeCommand: on Linux the cap is applied after the start.
func dataLimitedCommand(ctx context.Context, _ uint64, path string, args ...string) (*exec.Cmd, *capped, *capped) {
	return probeCommand(ctx, path, args...)
}

// applyDataLimit sets RLIMIT_DATA = limit (soft and hard) on the started process pid with
// prlimit(2); limit 0 leaves it alone.
func applyDataLimit(pid int, limit uint64) error {
	if limit == 0 {
		return nil
	}
	lim := unix.Rlimit{Cur: limit, Max: limit}
	if err := unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil); err != nil {
		return fmt.Errorf("prlimit: %w", err)
	}
	return nil
}
