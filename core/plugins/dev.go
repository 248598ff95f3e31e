package plugins

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// StatusDev is the status of an enabled plugin trusted by a dev receipt: it runs like an
// enabled one, and every listing and review says it runs from a dev session.
const StatusDev = "dev"

// Runnable reports whether a status is one under which a plugin activates.
func Runnable(status string) bool { return status == "enabled" || status == StatusDev }

// ErrDevSource is returned by TrustDev for a plugin not installed from a folder.
var ErrDevSource = errors.New("dev receipts are for plugins installed from a folder")

// TrustDev records a dev receipt for id's current closure, held by the process pid
// (`cwx plugin dev`): no review token, the staged bytes re-hashed first like Trust, refused
// for a plugin installed from a tarball. The receipt binds to this closure only, so each
// re-stage needs a new one, and it lapses when pid is gone (CheckReceipt).
func (s *Store) TrustDev(id string, pid int) error {
	r, err := s.Get(id)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(r.Source); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %s came from %s", ErrDevSource, id, r.Source)
	}
	if err := s.VerifyClosure(r); err != nil {
		return err
	}
	return s.withRecord(id, func(cur *Record) (bool, error) {
		if cur.Closure != r.Closure {
			return false, fmt.Errorf("%w: %s was reinstalled during trust", ErrContentChanged, id)
		}
		if cur.Trust != nil && cur.Trust.DevPID == 0 && cur.Trust.Closure == r.Closure && cur.Trust.Policy == s.policy {
			return false, errNoChange // a person's receipt for these very bytes stays
		}
		cur.Trust = &Receipt{Closure: r.Closure, Policy: s.policy, TrustedAt: s.now().UTC(), DevPID: pid}
		return true, nil
	})
}

// EndDev drops id's dev receipt held by pid (a person's receipt, or another session's, is
// left alone) and sets enabled back to wasEnabled.
func (s *Store) EndDev(id string, pid int, wasEnabled bool) error {
	err := s.withRecord(id, func(cur *Record) (bool, error) {
		changed := false
		if cur.Trust != nil && cur.Trust.DevPID == pid {
			cur.Trust, changed = nil, true
		}
		if cur.Enabled != wasEnabled {
			cur.Enabled, changed = wasEnabled, true
		}
		if !changed {
			return false, errNoChange
		}
		return true, nil
	})
	if errors.Is(err, ErrNotInstalled) {
		return nil
	}
	return err
}

// processAlive reports whether a process with pid exists (signal 0 reaches it or is refused).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
