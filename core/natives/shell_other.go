//go:build !unix

package natives

import (
	"context"
	"errors"
	"time"
)

// runShell is unix-only: the whole-tree kill needs a process group.
func runShell(context.Context, string, string, time.Duration) (shellOutcome, error) {
	return shellOutcome{}, errors.New("shell: native shell runs on unix systems only")
}
