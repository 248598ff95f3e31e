package plugins

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// StatusDev is the status of an enabled plugin trusted by a dev receipt: it runs like an
// enabled one, and every listing and review says it runs from a dev session.
const StatusDev = "dev"

// Runnable reports whether a status is one under which a plugin activates.
func Runnable(status string) bool { return status == "enabled" || status == StatusDev }

// ErrDevSource is returned by TrustDev for a plugin not installed from a folder.
var ErrDevSource = errors.New("dev receipts are for plugins installed from a folder")

// devTokenLen is the length of a dev session's token: 16 random bytes in hex.
const devTokenLen = 32

// DevSession is one `cwx plugin dev` session's hold on its dev receipts: an exclusive flock
// on $CWX_HOME/dev/<token>.lock, kept for the life of the session. The kernel releases the
// lock when the process dies, however it dies, so a receipt naming the token holds exactly
// while the session lives; a later process that reuses the pid holds no lock (ARCHITECTURE.md,
// “Plugins and trust”).
type DevSession struct {
	Token string // names the lock file; recorded in each receipt
	PID   int    // the session's process, recorded for people to read
	path  string
	f     *os.File
}

// devDir is where dev sessions keep their lock files.
func (l Layout) devDir() string { return filepath.Join(l.Home, "dev") }

// devLockPath is the lock file of a dev session token.
func (l Layout) devLockPath(token string) string {
	return filepath.Join(l.devDir(), token+".lock")
}

// BeginDev starts a dev session: it creates its lock file and takes the lock, which End (or
// the process's death) releases. Lock files of sessions that are gone are removed first.
func (s *Store) BeginDev() (*DevSession, error) {
	dir := s.layout.devDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("dev session: %w", err)
	}
	s.sweepDev()
	var b [devTokenLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	token := hex.EncodeToString(b[:])
	// the lock is taken on a temporary name and the file renamed into place, so a sweep by
	// another process never sees the final name unlocked
	tmp := filepath.Join(dir, ".tmp-"+token)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("dev session: %w", err)
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("dev session: lock %s: %w", tmp, err)
	}
	p := s.layout.devLockPath(token)
	if err := os.Rename(tmp, p); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("dev session: %w", err)
	}
	return &DevSession{Token: token, PID: os.Getpid(), path: p, f: f}, nil
}

// End releases the session's lock and removes its file; its receipts stop holding.
func (d *DevSession) End() error {
	if d == nil || d.f == nil {
		return nil
	}
	err := os.Remove(d.path)
	_ = flock(d.f, syscall.LOCK_UN)
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	d.f = nil
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return err
}

// devHeld reports whether the session token names a lock file some process holds now. It
// probes with a shared lock: the session holds an exclusive one, so the probe fails exactly
// while the session lives, and two probes at once never mistake each other for a session. A
// token that is not one BeginDev makes, a missing file, a symlink or a file that is not
// locked all say no.
func (s *Store) devHeld(token string) bool {
	if !validDevToken(token) {
		return false
	}
	f, err := os.OpenFile(s.layout.devLockPath(token), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	err = flock(f, syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		_ = flock(f, syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// heldDevTokens lists the tokens of the dev sessions alive (their lock files held), sorted
// and joined by commas; "" when none.
func (s *Store) heldDevTokens() string {
	ents, err := os.ReadDir(s.layout.devDir())
	if err != nil {
		return ""
	}
	var held []string
	for _, e := range ents { // ReadDir sorts by name
		if token, ok := strings.CutSuffix(e.Name(), ".lock"); ok && s.devHeld(token) {
			held = append(held, token)
		}
	}
	return strings.Join(held, ",")
}

// sweepDev removes the lock files no session holds any more (sessions killed before End).
func (s *Store) sweepDev() {
	ents, err := os.ReadDir(s.layout.devDir())
	if err != nil {
		return
	}
	for _, e := range ents {
		token, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || !validDevToken(token) || !e.Type().IsRegular() {
			continue
		}
		p := s.layout.devLockPath(token)
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = os.Remove(p) // unlinked while locked: no session can hold this file
		}
		f.Close()
	}
}

func validDevToken(t string) bool {
	if len(t) != devTokenLen {
		return false
	}
	for _, c := range t {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// TrustDev records a dev receipt for id's current closure, held by the session d (`cwx
// plugin dev`): no review token, the staged bytes re-hashed first like Trust, refused for a
// plugin installed from a tarball. The receipt binds to this closure only, so each re-stage
// needs a new one, and it lapses when the session's lock is released (CheckReceipt).
func (s *Store) TrustDev(id string, d *DevSession) error {
	if d == nil || d.f == nil {
		return errors.New("TrustDev needs a dev session that has not ended")
	}
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
		if cur.Trust != nil && !cur.Trust.IsDev() && cur.Trust.Closure == r.Closure && cur.Trust.Policy == s.policy && cur.Trust.Compat == s.compat.SHA256 {
			return false, errNoChange // a person's receipt for these very bytes stays
		}
		cur.Trust = s.receiptFor(cur, r.Closure, r.Entries)
		cur.Trust.DevPID, cur.Trust.DevSession = d.PID, d.Token
		return true, nil
	})
}

// EndDev drops id's dev receipt held by the session d (a person's receipt, or another
// session's, is left alone) and sets enabled back to wasEnabled. It does not end d.
func (s *Store) EndDev(id string, d *DevSession, wasEnabled bool) error {
	err := s.withRecord(id, func(cur *Record) (bool, error) {
		changed := false
		if cur.Trust != nil && cur.Trust.IsDev() && d != nil && cur.Trust.DevSession == d.Token {
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
