package plugins

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// PolicyVersion is the activation policy every trust receipt is bound to. Changing what a
// trusted plugin may do (a new capability, a new injectable service) bumps it, and every
// receipt then fails closed with "capabilities changed, review again".
const PolicyVersion = "cwx-activation-1"

// Options configures a Store.
type Options struct {
	Home string // the cwx home (config.Home())
	// Provided lists the package names the host provides as singletons (nodeshim/jshost's
	// provided-modules list). A runtime dependency on one of them needs no bundled copy.
	Provided []string
	// Refused lists the host's refused import patterns ("@deepseek-ai/dsh-*"); entries with
	// spaces are prose and ignored. A review notes every dependency that matches one.
	Refused []string
	Limits  Limits // zero value: DefaultLimits
	Policy  string // zero value: PolicyVersion; tests inject others
	// Compat is the compatibility table's bytes; nil: the JS host's own
	// (jshost.CompatibilityJSON). Tests inject others.
	Compat []byte
	Now    func() time.Time // zero value: time.Now
}

// Store is the plugins on disk of one cwx home: staged copies, data directories and the
// state file. Every method reads the state afresh, so concurrent processes see each
// other's changes; every change happens under the state lock.
type Store struct {
	layout   Layout
	provided map[string]bool
	refused  []string
	limits   Limits
	policy   string
	compat   *Compat
	now      func() time.Time
	verified *verifyCache // the staged folders that last hashed to their closure
}

// Open returns the Store of opts.Home, creating the home (0700) when missing.
func Open(opts Options) (*Store, error) {
	if opts.Home == "" {
		return nil, errors.New("plugins: Options.Home is empty")
	}
	if err := config.EnsureDir(opts.Home); err != nil {
		return nil, err
	}
	s := &Store{layout: Layout{Home: opts.Home}, provided: map[string]bool{}, limits: opts.Limits, policy: opts.Policy, now: opts.Now, verified: &verifyCache{}}
	for _, p := range opts.Provided {
		s.provided[p] = true
	}
	for _, p := range opts.Refused {
		if p != "" && !strings.ContainsAny(p, " \t") {
			s.refused = append(s.refused, p)
		}
	}
	if s.limits == (Limits{}) {
		s.limits = DefaultLimits
	}
	if s.policy == "" {
		s.policy = PolicyVersion
	}
	table := opts.Compat
	if table == nil {
		table = jshost.CompatibilityJSON()
	}
	c, err := ParseCompat(table)
	if err != nil {
		return nil, err
	}
	s.compat = c
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Layout returns the paths of this store.
func (s *Store) Layout() Layout { return s.layout }

// Policy returns the activation policy version receipts are checked against.
func (s *Store) Policy() string { return s.policy }

// Compat returns the compatibility table reviews and receipts are checked against.
func (s *Store) Compat() *Compat { return s.compat }

// tokenPolicy is what a review token binds besides the id and the closure: the activation
// policy and the compatibility table's digest, so a review shown under another table cannot
// trust under this one.
func (s *Store) tokenPolicy() string { return s.policy + "\x00compat " + s.compat.SHA256 }

// receiptFor is a new receipt for r's closure under this store's policy and table, with what
// the table says of each service r's entries inject.
func (s *Store) receiptFor(r *Record, closure string, entries []Entry) *Receipt {
	names, unread := s.injectsOf(r, closure, entries)
	return &Receipt{Closure: closure, Policy: s.policy, Compat: s.compat.SHA256, Services: serviceMap(s.compat, names, unread), TrustedAt: s.now().UTC()}
}

// StatePath returns the state file's path.
func (s *Store) StatePath() string { return s.layout.StatePath() }

// State reads the current state (no lock: writes are atomic renames).
func (s *Store) State() (*State, error) { return readState(s.layout.StatePath()) }

// ErrNotInstalled is returned for an id that has no record.
var ErrNotInstalled = errors.New("plugin is not installed")

// Get returns the record of id.
func (s *Store) Get(id string) (*Record, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	r, ok := st.Plugins[id]
	if !ok {
		return nil, notInstalled(id)
	}
	return r, nil
}

func notInstalled(id string) error { return &NotInstalledError{ID: id} }

// NotInstalledError names an id that has no record; it matches ErrNotInstalled. List
// returns the installed ones.
type NotInstalledError struct{ ID string }

func (e *NotInstalledError) Error() string { return fmt.Sprintf("%s: %q", ErrNotInstalled, e.ID) }

// Is makes errors.Is(err, ErrNotInstalled) true.
func (e *NotInstalledError) Is(target error) bool { return target == ErrNotInstalled }

// List returns every record, sorted by id.
func (s *Store) List() ([]*Record, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	return sortedRecords(st), nil
}

// update runs fn on the state under the lock and writes the result. fn returns whether
// what is desired changed (then the generation increases). Returning errNoChange skips
// the write.
func (s *Store) update(fn func(st *State) (bool, error)) error {
	lk, err := lockFile(s.layout.lockPath())
	if err != nil {
		return err
	}
	defer lk.unlock()
	st, err := readState(s.layout.StatePath())
	if err != nil {
		return err
	}
	bump, err := fn(st)
	if errors.Is(err, errNoChange) {
		return nil
	}
	if err != nil {
		return err
	}
	if bump {
		st.Generation++
	}
	if err := writeState(s.layout.StatePath(), st); err != nil {
		return err
	}
	if bump {
		// The lock follows what is installed; state.json stays the record it is made from.
		return writeLock(s.layout.LockPath(), st)
	}
	return nil
}

var errNoChange = errors.New("no change")

// withRecord runs fn on the record of id under the lock.
func (s *Store) withRecord(id string, fn func(r *Record) (bool, error)) error {
	return s.update(func(st *State) (bool, error) {
		r, ok := st.Plugins[id]
		if !ok {
			return false, notInstalled(id)
		}
		return fn(r)
	})
}

// Enable marks id enabled. It activates only once it is also trusted with a valid receipt.
func (s *Store) Enable(id string) error {
	return s.withRecord(id, func(r *Record) (bool, error) {
		if r.Enabled {
			return false, errNoChange
		}
		r.Enabled = true
		return true, nil
	})
}

// Disable marks id disabled; running processes revoke it at their next poll.
func (s *Store) Disable(id string) error {
	return s.withRecord(id, func(r *Record) (bool, error) {
		if !r.Enabled {
			return false, errNoChange
		}
		r.Enabled = false
		return true, nil
	})
}

// Untrust drops id's receipt.
func (s *Store) Untrust(id string) error {
	return s.withRecord(id, func(r *Record) (bool, error) {
		if r.Trust == nil {
			return false, errNoChange
		}
		r.Trust = nil
		return true, nil
	})
}

// AppendDiagnostic records d in id's diagnostics ring (bounded to DiagnosticsRing). It does
// not change the generation. A zero Time is set to now.
func (s *Store) AppendDiagnostic(id string, d Diagnostic) error {
	if d.Time.IsZero() {
		d.Time = s.now().UTC()
	}
	return s.withRecord(id, func(r *Record) (bool, error) {
		r.appendDiagnostic(d)
		return false, nil
	})
}

// Generation reads the state's generation counter from disk.
func (s *Store) Generation() (uint64, error) {
	st, err := s.State()
	if err != nil {
		return 0, err
	}
	return st.Generation, nil
}
