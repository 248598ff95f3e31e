package plugins

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Receipt failures. Each fails closed: the plugin is not desired until reviewed again.
var (
	ErrNotTrusted          = errors.New("not trusted: review it, then trust it with the token its review gives")
	ErrContentChanged      = errors.New("content changed, review again")
	ErrCapabilitiesChanged = errors.New("capabilities changed, review again")
	ErrBadToken            = errors.New("the review token does not match")
)

// ReviewToken is the token `cwx plugin review` prints: bound to the plugin id, its closure
// hash and the activation policy version. It proves which bytes and which policy were shown;
// it is not a secret.
func ReviewToken(id, closure, policy string) string {
	sum := sha256.Sum256([]byte("cwx-review-token\x00" + id + "\x00" + closure + "\x00" + policy))
	return "rv1-" + hex.EncodeToString(sum[:16])
}

// ReceiptError explains why a receipt does not hold; it wraps one of the Err* above.
type ReceiptError struct {
	ID     string
	Err    error
	Detail string
}

func (e *ReceiptError) Error() string {
	msg := fmt.Sprintf("plugin %s: %v", e.ID, e.Err)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func (e *ReceiptError) Unwrap() error { return e.Err }

// TokenError refuses a trust: no token was given (Missing), or it is not the token of the
// plugin's current review. It matches ErrBadToken; Review gives the current token.
type TokenError struct {
	ID      string
	Missing bool
}

func (e *TokenError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s: trusting %s needs the token of its current review", ErrBadToken, e.ID)
	}
	return fmt.Sprintf("%s the current review of %s", ErrBadToken, e.ID)
}

// Is makes errors.Is(err, ErrBadToken) true.
func (e *TokenError) Is(target error) bool { return target == ErrBadToken }

// CheckReceipt compares r's receipt with its recorded closure, the store's policy and its
// compatibility table: a receipt written under another table holds while every service the
// plugin injects has the status it had then (one written before tables is judged against
// legacyCompat, reading the entries' injects from the staged copy); otherwise it fails with
// ErrCapabilitiesChanged naming each service and what changed. Apart from that one read it is
// an in-memory check; VerifyEntries and VerifyClosure re-hash the bytes.
func (s *Store) CheckReceipt(r *Record) error {
	switch {
	case r.Trust == nil:
		return &ReceiptError{ID: r.ID, Err: ErrNotTrusted}
	case r.Trust.Policy != s.policy:
		return &ReceiptError{ID: r.ID, Err: ErrCapabilitiesChanged, Detail: fmt.Sprintf("trusted under policy %s, cwx now runs %s", r.Trust.Policy, s.policy)}
	case r.Trust.Closure != r.Closure:
		return &ReceiptError{ID: r.ID, Err: ErrContentChanged, Detail: fmt.Sprintf("trusted %s, installed %s", short(r.Trust.Closure), short(r.Closure))}
	case r.Trust.IsDev() && !s.devHeld(r.Trust.DevSession):
		return &ReceiptError{ID: r.ID, Err: ErrNotTrusted, Detail: fmt.Sprintf("its dev session (pid %d) ended", r.Trust.DevPID)}
	}
	if r.Trust.Compat != s.compat.SHA256 {
		if d := s.compatChange(r); d != "" {
			return &ReceiptError{ID: r.ID, Err: ErrCapabilitiesChanged, Detail: d}
		}
	}
	return nil
}

// compatChange says why r's receipt, written under another compatibility table (or, with no
// table recorded, under legacyCompat), no longer holds: one clause per injected service whose
// status changed, or "" when none did and the receipt still holds.
func (s *Store) compatChange(r *Record) string {
	recorded := r.Trust.Services
	from := "no table"
	if r.Trust.Compat == "" {
		names, unread := s.injectsOf(r, r.Closure, r.Entries)
		recorded = serviceMap(legacyCompat, names, unread)
	} else {
		from = short(r.Trust.Compat)
	}
	d := servicesChanged(recorded, s.compat)
	if d == "" {
		return ""
	}
	return fmt.Sprintf("the compatibility table changed (%s → %s): %s", from, short(s.compat.SHA256), d)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// VerifyClosure checks that the staged copy of r still holds exactly the installed bytes
// (call it before every activation: first, replayed and restarted ones alike) and fails
// with ErrContentChanged when any file differs, came or went. A folder whose every file
// keeps the identity, size, mode and times it had when it last hashed to the closure is
// not hashed again; any change re-hashes it (ARCHITECTURE.md, “Plugins and trust”).
func (s *Store) VerifyClosure(r *Record) error {
	dir := s.layout.StageDir(r.ID, r.Closure)
	started := s.now()
	files, err := scanTree(dir, dir, s.limits)
	if err != nil {
		s.verified.forget(dir)
		return &ReceiptError{ID: r.ID, Err: ErrContentChanged, Detail: err.Error()}
	}
	if s.verified.holds(dir, r.Closure, files) {
		return nil
	}
	s.verified.hashes.Add(1)
	c, err := hashFiles(dir, files)
	if err != nil {
		s.verified.forget(dir)
		return &ReceiptError{ID: r.ID, Err: ErrContentChanged, Detail: err.Error()}
	}
	if c.SHA256 != r.Closure {
		s.verified.forget(dir)
		return &ReceiptError{ID: r.ID, Err: ErrContentChanged, Detail: "the staged files no longer hash to " + short(r.Closure)}
	}
	s.verified.remember(dir, r.Closure, started, files)
	return nil
}

// VerifyEntries re-hashes r's entry modules only. VerifyClosure covers them and every other
// file; this narrower check is kept for callers that want the entries alone.
func (s *Store) VerifyEntries(r *Record) error {
	dir := s.layout.StageDir(r.ID, r.Closure)
	for _, e := range r.Entries {
		sum, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(e.Path)))
		if err != nil {
			return &ReceiptError{ID: r.ID, Err: ErrContentChanged, Detail: fmt.Sprintf("entry %s: %v", e.Path, err)}
		}
		if sum != e.SHA256 {
			return &ReceiptError{ID: r.ID, Err: ErrContentChanged, Detail: "entry " + e.Path + " was modified"}
		}
	}
	return nil
}

// Trust records a receipt for id when token matches its current review. The staged bytes
// are re-hashed first, so trust always binds to what is on disk.
func (s *Store) Trust(id, token string) error {
	if token == "" {
		return &TokenError{ID: id, Missing: true}
	}
	r, err := s.Get(id)
	if err != nil {
		return err
	}
	if ok, err := s.trustPending(r, token); ok {
		return err // a staged update's token: the update becomes the trusted version
	}
	if err := s.VerifyClosure(r); err != nil {
		return fmt.Errorf("%w; reinstall the plugin, then review it", err)
	}
	want := ReviewToken(r.ID, r.Closure, s.tokenPolicy())
	if subtle.ConstantTimeCompare([]byte(want), []byte(token)) != 1 {
		return &TokenError{ID: id}
	}
	return s.withRecord(id, func(cur *Record) (bool, error) {
		if cur.Closure != r.Closure {
			return false, fmt.Errorf("%w: %s was reinstalled during trust; review it again", ErrContentChanged, id)
		}
		if cur.Trust != nil && cur.Trust.Closure == r.Closure && cur.Trust.Policy == s.policy && cur.Trust.Compat == s.compat.SHA256 {
			return false, errNoChange // already trusted for these bytes, this policy and this table
		}
		receipt := s.receiptFor(cur, r.Closure, r.Entries)
		if cur.FirstTrustedAt.IsZero() { // kept from here on: it ranks contenders for a name
			cur.FirstTrustedAt = receipt.TrustedAt
			if cur.Trust != nil {
				cur.FirstTrustedAt = cur.Trust.TrustedAt
			}
		}
		cur.Trust = receipt
		return true, nil
	})
}

// Status is a one-phrase summary of a record: "disabled", "not trusted", "content changed,
// review again", "capabilities changed, review again", "staged copy missing, reinstall",
// or "enabled".
func (s *Store) Status(r *Record) string {
	if err := s.CheckReceipt(r); err != nil {
		var re *ReceiptError
		if errors.As(err, &re) {
			if errors.Is(err, ErrNotTrusted) {
				if r.Enabled {
					return "enabled, not trusted"
				}
				return "not trusted"
			}
			return re.Err.Error()
		}
	}
	if _, err := os.Stat(s.layout.StageDir(r.ID, r.Closure)); err != nil {
		return "staged copy missing, reinstall"
	}
	if !r.Enabled {
		return "trusted, disabled"
	}
	if r.Trust.IsDev() {
		return StatusDev
	}
	return "enabled"
}
