package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestCheckMemoryCapOnRealRuntimes(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			r := want.Get(t)
			rep := CheckMemoryCap(context.Background(), Runtime{Kind: Kind(r.Name), Path: r.Path}, 0, 0)
			if !rep.Enforced || rep.Mechanism != "RLIMIT_DATA" || rep.LimitBytes != 1<<30 {
				t.Fatalf("report = %+v, want RLIMIT_DATA enforced at 1 GiB", rep)
			}
			t.Logf("%s: %s", r.Name, rep.Detail)
		})
	}
}

func TestCheckMemoryCapVerdicts(t *testing.T) {
	// the runtimes that answer get a bound no loaded machine reaches; the one that hangs
	// is given a short one, which it always runs out
	const answers, hangs = time.Minute, 300 * time.Millisecond
	tests := []struct {
		name, body, detail string
		enforced           bool
		limit              time.Duration
	}{
		{"allocation never fails", `read x; echo '["ok","ok"]'`, "not enforced: a 1280 MiB allocation succeeded under a 1024 MiB cap", false, answers},
		{"control fails too", `read x; echo '["ok","fail: nope"]'`, "inconclusive: without a cap the runtime could not allocate 1280 MiB: fail: nope", false, answers},
		{"runtime garbles", `read x; echo hi`, `inconclusive: the control run without a cap failed: unexpected output "hi\n"`, false, answers},
		{"runtime hangs", `sleep 60`, "inconclusive: the control run without a cap failed: no answer within 300ms", false, hangs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := fakeBin(t, filepath.Join(t.TempDir(), "bin"), "node", tc.body)
			rep := CheckMemoryCap(context.Background(), Runtime{Kind: KindNode, Path: p}, 1<<30, tc.limit)
			if rep.Enforced != tc.enforced || rep.Detail != tc.detail {
				t.Errorf("report = %+v, want enforced=%v %q", rep, tc.enforced, tc.detail)
			}
		})
	}
}

func TestCheckBubblewrap(t *testing.T) {
	old := bwrapFallback
	bwrapFallback = "/nonexistent/bwrap"
	t.Cleanup(func() { bwrapFallback = old })
	tests := []struct {
		name, body     string
		present, works bool
		detail         string
	}{
		{"absent", "", false, false, "bwrap not found (install bubblewrap to sandbox the plugin tier)"},
		{"works", `[ "$*" = "--ro-bind / / true" ] || exit 7`, true, true, "`bwrap --ro-bind / / true` succeeded"},
		{"fails", `echo "bwrap: No permissions to create new namespace" >&2; exit 1`, true, false,
			"`bwrap --ro-bind / / true` failed: exit status 1: bwrap: No permissions to create new namespace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.body != "" {
				fakeBin(t, dir, "bwrap", tc.body)
			}
			rep := CheckBubblewrap(context.Background(), "relative:"+dir, time.Second)
			if rep.Present != tc.present || rep.Works != tc.works || rep.Detail != tc.detail {
				t.Errorf("report = %+v", rep)
			}
			if tc.present && !strings.HasPrefix(rep.Path, dir) {
				t.Errorf("Path = %q", rep.Path)
			}
		})
	}
}
