package owners

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
)

// forgetShimChecks drops this process's shim answers, as a new process would start.
func forgetShimChecks() {
	shimChecks.Range(func(k, _ any) bool { shimChecks.Delete(k); return true })
}

// TestShimCheckProbeCache counts the starts of a fake shim: a success is reused by a later
// process until the program's file changes, and a failure is probed every time.
func TestShimCheckProbeCache(t *testing.T) {
	const shim = `echo "` + shimProbeReply + ` (got cwx-probe)" >&2; exit 2`
	const notShim = `echo "usage: some other main" >&2; exit 1`
	tests := []struct {
		name   string
		body   string
		change func(t *testing.T, prog string) // before the second process
		want   [2]int                          // probes run by the first and the second process
		ok     bool
	}{
		{"a success is reused", shim, nil, [2]int{1, 0}, true},
		{"a touched program is probed again", shim, func(t *testing.T, prog string) {
			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(prog, later, later); err != nil {
				t.Fatal(err)
			}
		}, [2]int{1, 1}, true},
		{"a program replaced by another main is probed and refused", shim, func(t *testing.T, prog string) {
			tmp := prog + ".new"
			if err := os.WriteFile(tmp, []byte("#!/bin/sh\necho x >> "+filepath.Join(filepath.Dir(prog), "starts")+"\n"+notShim+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, prog); err != nil {
				t.Fatal(err)
			}
		}, [2]int{1, 1}, false},
		{"a failure is not cached", notShim, nil, [2]int{1, 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			starts := filepath.Join(dir, "starts")
			prog := filepath.Join(dir, "prog")
			if err := os.WriteFile(prog, []byte("#!/bin/sh\necho x >> "+starts+"\n"+tc.body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cache := probecache.Open(filepath.Join(dir, "home"), probecache.Options{})
			count := func() int {
				b, _ := os.ReadFile(starts)
				return strings.Count(string(b), "x\n")
			}
			for run := 0; run < 2; run++ {
				forgetShimChecks()
				t.Cleanup(forgetShimChecks)
				if run == 1 && tc.change != nil {
					tc.change(t, prog)
				}
				before := count()
				err := checkShim(context.Background(), prog, cache)
				if (err == nil) != (tc.ok || run == 0 && tc.change != nil) {
					t.Fatalf("run %d: checkShim = %v", run, err)
				}
				if got := count() - before; got != tc.want[run] {
					t.Errorf("run %d started the program %d times, want %d", run, got, tc.want[run])
				}
			}
		})
	}
}

// script writes an executable shell script standing in for an embedding program.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "embedder")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShimCheckCutShort: a check whose context ends first is the caller's cancellation, not
// a program that is not the shim, and is not kept: the next check probes again.
func TestShimCheckCutShort(t *testing.T) {
	prog := script(t, "sleep 30")
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for name, ctx := range map[string]context.Context{"cancelled": cancelled, "deadline passed": expired} {
		t.Run(name, func(t *testing.T) {
			err := checkShim(ctx, prog, nil)
			if !errors.Is(err, ErrCancelled) || errors.Is(err, ErrNoShim) || !errors.Is(err, ctx.Err()) {
				t.Fatalf("checkShim = %v; want ErrCancelled with the context's cause, not ErrNoShim", err)
			}
			if !strings.Contains(err.Error(), "was cut short") {
				t.Errorf("error %q does not say the check was cut short", err)
			}
			if _, kept := shimChecks.Load(prog); kept {
				t.Error("a check cut short was kept for the process")
			}
		})
	}
}

// TestShimCheckNotCutShortByAnother: a check that another caller's context cut short (that
// caller's answer, still held for the process) is run again for a caller whose context
// lives, instead of handing it the other caller's cancellation.
func TestShimCheckNotCutShortByAnother(t *testing.T) {
	prog := script(t, `echo "`+shimProbeReply+` (got cwx-probe)" >&2; exit 2`)
	other := &shimCheck{}
	other.once.Do(func() {
		other.err = fmt.Errorf("%w: the check that %s runs the extension-host shim was cut short: %w", ErrCancelled, prog, context.Canceled)
	})
	shimChecks.Store(prog, other)
	defer shimChecks.Delete(prog)
	if err := checkShim(context.Background(), prog, nil); err != nil {
		t.Fatalf("checkShim = %v; want the shim found", err)
	}
}
