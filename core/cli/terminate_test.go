package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestWatchSignals: SIGTERM cancels the command's context with errTerminated; a command that
// returns (stop) in time is not cut; one that does not is ended by exit(ExitTimeout) after
// the grace, or at once by a second SIGTERM, with a line on stderr saying so.
func TestWatchSignals(t *testing.T) {
	tests := []struct {
		name    string
		signals int
		grace   time.Duration
		exits   bool
		says    string
	}{
		{"no signal", 0, time.Hour, false, ""},
		{"the command returns within the grace", 1, time.Hour, false, ""},
		{"the command is still running after the grace", 1, time.Millisecond, true, "still running 1ms after SIGTERM; exiting"},
		{"a second SIGTERM", 2, time.Hour, true, "a second SIGTERM; exiting now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stderr := &testenv.Buffer{}
			exited := make(chan int, 1)
			sigs := make(chan os.Signal, 2)
			unnotified := false
			ctx, stop := watchSignals(context.Background(), stderr, tt.grace, func(code int) { exited <- code }, sigs, func() { unnotified = true })
			for range tt.signals {
				sigs <- syscall.SIGTERM
			}
			if tt.signals > 0 {
				<-ctx.Done()
				if !errors.Is(context.Cause(ctx), errTerminated) {
					t.Errorf("cause %v, want errTerminated", context.Cause(ctx))
				}
			} else if ctx.Err() != nil {
				t.Error("the context ended without a signal")
			}
			if tt.exits {
				if code := <-exited; code != ExitTimeout {
					t.Errorf("exit(%d), want %d", code, ExitTimeout)
				}
			}
			stop()
			stop() // idempotent
			if !unnotified {
				t.Error("stop did not stop the signal delivery")
			}
			select {
			case code := <-exited:
				if !tt.exits {
					t.Errorf("exit(%d) called for a command that returned", code)
				}
			default:
			}
			if got := stderr.String(); (tt.says == "") != (got == "") || !strings.Contains(got, tt.says) {
				t.Errorf("stderr %q, want %q", got, tt.says)
			}
		})
	}
}
