package plugins

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

func beginDev(t *testing.T, s *Store) *DevSession {
	t.Helper()
	d, err := s.BeginDev()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.End() })
	return d
}

func TestDevReceipt(t *testing.T) {
	cases := []struct {
		name       string
		end        bool // the session ends before the checks
		wantStatus string
		wantTrust  error
	}{
		{"held by a live session", false, StatusDev, nil},
		{"its session ended", true, "enabled, not trusted", ErrNotTrusted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newStore(t, t.TempDir(), nil)
			installHello(t, s)
			d := beginDev(t, s)
			if err := s.TrustDev("hello", d); err != nil {
				t.Fatal(err)
			}
			if err := s.Enable("hello"); err != nil {
				t.Fatal(err)
			}
			if c.end {
				if err := d.End(); err != nil {
					t.Fatal(err)
				}
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
			if err := s.EndDev("hello", d, false); err != nil {
				t.Fatal(err)
			}
			r, _ = s.Get("hello")
			if r.Trust != nil || r.Enabled {
				t.Fatalf("after EndDev: trust %+v, enabled %v", r.Trust, r.Enabled)
			}
		})
	}
}

// devHelperEnv names the cwx home of TestDevSessionHelper, which runs only in a child.
const devHelperEnv = "CWX_TEST_DEV_HELPER_HOME"

// TestDevSessionHelper is the dev session of TestDevReceiptEndsWithAKilledSession: run in a
// child process, it trusts hello under a session of its own, says so and waits to be killed.
func TestDevSessionHelper(t *testing.T) {
	home := os.Getenv(devHelperEnv)
	if home == "" {
		t.Skip("runs as the child of TestDevReceiptEndsWithAKilledSession")
	}
	s := newStore(t, home, nil)
	d, err := s.BeginDev()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.TrustDev("hello", d); err != nil {
		t.Fatal(err)
	}
	fmt.Println("trusted")
	_, _ = io.Copy(io.Discard, os.Stdin) // until killed
}

// A dev session SIGKILLed leaves its receipt in state.json; the kernel released its lock,
// so no later process counts the receipt.
func TestDevReceiptEndsWithAKilledSession(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	installHello(t, s)
	if err := s.Enable("hello"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDevSessionHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), devHelperEnv+"="+home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "trusted\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the dev session child said %q (%v)", line, err)
	}
	r, _ := s.Get("hello")
	if got := s.Status(r); got != StatusDev {
		t.Fatalf("status while the session lives: %q", got)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	r, _ = s.Get("hello")
	if r.Trust == nil || r.Trust.DevPID != cmd.Process.Pid {
		t.Fatalf("the killed session's receipt is not in state.json: %+v", r.Trust)
	}
	if err := s.CheckReceipt(r); !errors.Is(err, ErrNotTrusted) {
		t.Fatalf("receipt of a killed session: %v", err)
	}
	if got := s.Status(r); got != "enabled, not trusted" {
		t.Fatalf("status after the session was killed: %q", got)
	}
	if d, _, _, err := s.Desired(nil); err != nil || len(d) != 0 {
		t.Fatalf("desired after the session was killed: %v, %v", d, err)
	}
}

// A later process may reuse the pid of a dead session: a receipt naming a live pid counts
// only when the lock its session token names is held.
func TestDevReceiptNamingALivePidWithoutTheLock(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	installHello(t, s)
	stale := beginDev(t, s)
	staleFile := s.layout.devLockPath(stale.Token)
	// what a killed session leaves: the file, no lock
	_ = flock(stale.f, syscall.LOCK_UN)
	_ = stale.f.Close()
	stale.f = nil
	if _, err := os.Stat(staleFile); err != nil {
		t.Fatalf("the stale lock file: %v", err)
	}
	for _, c := range []struct {
		name    string
		session string
		setup   func(t *testing.T)
	}{
		{"a receipt of before session locks", "", nil},
		{"its lock file is there, unlocked", stale.Token, nil},
		{"its lock file is gone", strings.Repeat("ab", devTokenLen/2), nil},
		{"its lock file is a symlink to a held lock", strings.Repeat("cd", devTokenLen/2), func(t *testing.T) {
			held := beginDev(t, s)
			if err := os.Symlink(s.layout.devLockPath(held.Token), s.layout.devLockPath(strings.Repeat("cd", devTokenLen/2))); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				c.setup(t)
			}
			err := s.update(func(st *State) (bool, error) {
				r := st.Plugins["hello"]
				r.Enabled = true
				r.Trust = &Receipt{Closure: r.Closure, Policy: s.policy, TrustedAt: fixedNow(), DevPID: os.Getpid(), DevSession: c.session}
				return true, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			r, _ := s.Get("hello")
			if err := s.CheckReceipt(r); !errors.Is(err, ErrNotTrusted) {
				t.Fatalf("a dev receipt naming live pid %d without its lock: %v", os.Getpid(), err)
			}
		})
	}
	fresh := beginDev(t, s) // sweeps what no session holds
	if _, err := os.Stat(staleFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stale lock file was not swept: %v", err)
	}
	if !s.devHeld(fresh.Token) {
		t.Fatal("a live session's lock is not seen as held")
	}
}

func TestDevReceiptLeavesAPersonsReceipt(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	installHello(t, s)
	rv, _ := s.Review("hello")
	if err := s.Trust("hello", rv.Token); err != nil {
		t.Fatal(err)
	}
	d := beginDev(t, s)
	if err := s.TrustDev("hello", d); err != nil {
		t.Fatal(err)
	}
	if err := s.EndDev("hello", d, false); err != nil {
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
	if err := s.TrustDev(res.ID, beginDev(t, s)); !errors.Is(err, ErrDevSource) {
		t.Fatalf("TrustDev of a tarball: %v", err)
	}
}

// TestWatcherSeesDevSessionsEnd: a dev session that begins or dies (its lock released by the
// kernel, the file left behind) changes no state, and the watcher still reports a change.
func TestWatcherSeesDevSessionsEnd(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	w, err := NewWatcher(s)
	must(t, err)
	changed := func() bool {
		w.Poll()
		select {
		case <-w.Changed():
			return true
		default:
			return false
		}
	}
	if changed() {
		t.Fatal("a change with nothing changed")
	}
	d, err := newStore(t, home, nil).BeginDev() // as another process would
	must(t, err)
	if !changed() {
		t.Fatal("no change when a dev session began")
	}
	if changed() {
		t.Fatal("a change while the session lives on")
	}
	must(t, d.f.Close()) // killed: the kernel drops the lock, the file stays
	d.f = nil
	if !changed() {
		t.Fatal("no change when the dev session died")
	}
}
