package plugins

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestDevReceipt(t *testing.T) {
	cases := []struct {
		name       string
		pid        func(t *testing.T) int
		wantStatus string
		wantTrust  error
	}{
		{"held by a live session", func(*testing.T) int { return 1 }, StatusDev, nil},
		{"its session ended", deadPID, "enabled, not trusted", ErrNotTrusted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newStore(t, t.TempDir(), nil)
			installHello(t, s)
			pid := c.pid(t)
			if err := s.TrustDev("hello", pid); err != nil {
				t.Fatal(err)
			}
			if err := s.Enable("hello"); err != nil {
				t.Fatal(err)
			}
			r, _ := s.Get("hello")
			if got := s.Status(r); got != c.wantStatus {
				t.Fatalf("status %q, want %q", got, c.wantStatus)
			}
			if err := s.CheckReceipt(r); !errors.Is(err, c.wantTrust) && !(err == nil && c.wantTrust == nil) {
				t.Fatalf("receipt check %v, want %v", err, c.wantTrust)
			}
			rv, _ := s.Review("hello")
			if rv.Dev != (c.wantTrust == nil) {
				t.Fatalf("review dev %v", rv.Dev)
			}
			if err := s.EndDev("hello", pid, false); err != nil {
				t.Fatal(err)
			}
			r, _ = s.Get("hello")
			if r.Trust != nil || r.Enabled {
				t.Fatalf("after EndDev: trust %+v, enabled %v", r.Trust, r.Enabled)
			}
		})
	}
}

func TestDevReceiptLeavesAPersonsReceipt(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	installHello(t, s)
	rv, _ := s.Review("hello")
	if err := s.Trust("hello", rv.Token); err != nil {
		t.Fatal(err)
	}
	if err := s.TrustDev("hello", 1); err != nil {
		t.Fatal(err)
	}
	if err := s.EndDev("hello", 1, false); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Get("hello")
	if r.Trust == nil || r.Trust.DevPID != 0 {
		t.Fatalf("the person's receipt for the same bytes was replaced: %+v", r.Trust)
	}
}

func TestDevReceiptRefusesATarball(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	tgz := plugintest.Tarball(t, t.TempDir(), "p.tgz", []plugintest.TarEntry{
		{Name: "package/package.json", Body: `{"name":"tgz-plugin","version":"1.0.0","main":"index.mjs"}`},
		{Name: "package/index.mjs", Body: "export function apply() {}\n"},
	})
	res, err := s.Install(tgz)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.TrustDev(res.ID, 1); !errors.Is(err, ErrDevSource) {
		t.Fatalf("TrustDev of a tarball: %v", err)
	}
}
