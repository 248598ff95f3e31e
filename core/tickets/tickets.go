package tickets

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Numbers of the ticket table (ARCHITECTURE.md, “Lifecycles and numbers”).
const (
	// TTL is a row's backstop expiry.
	TTL = 24 * time.Hour
	// Uses is an Invocation ticket's budget: the core/call requests one invocation may make.
	Uses = 50
	// Burst invalid presentations within BurstWindow from one host are a protocol violation.
	Burst = 8
	// BurstWindow is the window of the burst rule.
	BurstWindow = time.Minute
	// secretBytes is the ticket's randomness: 32 bytes, 256 bits.
	secretBytes = 32
)

// Errors, matched with errors.Is.
var (
	// ErrRefused: the presentation was not admitted. The text never says why.
	ErrRefused = errdefs.New(errdefs.ErrRefused, "the ticket is not valid for this request")
	// ErrViolation: this refusal was the host's Burst-th invalid presentation within
	// BurstWindow. The error also matches ErrRefused.
	ErrViolation = errdefs.New(errdefs.ErrViolation, fmt.Sprintf("%d invalid ticket presentations within %s", Burst, BurstWindow))
)

// violation is ErrRefused and ErrViolation at once.
var violation = errdefs.WithText(ErrRefused.Error()+" ("+ErrViolation.Error()+")", ErrRefused, ErrViolation)

// Kind is what a ticket is for.
type Kind uint8

// Kinds. The zero value is no kind and matches no row.
const (
	Invocation Kind = iota + 1 // a tool/call in flight; redeemed by core/call and by user/ask
	Command                    // a command/run in flight; redeemed by user/ask only
)

// Host names one incarnation of one host process tree: the host (a tier's shared host or a
// plugin's own) and its generation, which counts per host.
type Host struct {
	Key        protocol.HostKey
	Generation uint64
}

// Target is what a ticket's invocation is: the call id the core gave it and its tool.
type Target struct {
	CallID string
	Tool   string
}

// Row is what a ticket indexes, as minted.
type Row struct {
	Kind   Kind
	Host   Host
	Owner  protocol.OwnerRef
	Method string // the method the ticket authorises, protocol.MethodCoreCall
	Target Target
}

// Presentation is what a request states along with the ticket.
type Presentation struct {
	Kind   Kind
	Host   Host // the host the request came from (the core knows it; the host does not say)
	Owner  protocol.OwnerRef
	Method string
}

// Ticket is a minted ticket. Its string forms are redacted; Reveal returns the secret.
type Ticket struct{ secret string }

const redacted = "ticket(redacted)"

// Reveal returns the secret, for the frame that carries it to the host only.
func (t Ticket) Reveal() string { return t.secret }

// IsZero reports whether t is no ticket.
func (t Ticket) IsZero() bool { return t.secret == "" }

func (t Ticket) String() string   { return redacted }
func (t Ticket) GoString() string { return redacted }

// Format prints the redacted form for every verb.
func (t Ticket) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalJSON and MarshalText write the redacted form: a ticket is never persisted.
func (t Ticket) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText writes the redacted form.
func (t Ticket) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Options configure a Table. The zero value is usable.
type Options struct {
	Now func() time.Time // nil: time.Now
	TTL time.Duration    // 0: TTL
	// Uses is each ticket's budget; 0: Uses.
	Uses int
}

// row is a Row with its life.
type row struct {
	Row
	expires time.Time
	uses    int
}

// Table is the core's ticket table. It is safe for concurrent use.
type Table struct {
	now  func() time.Time
	ttl  time.Duration
	uses int

	mu sync.Mutex
	// +checklocks:mu
	rows map[string]*row
	// +checklocks:mu
	strikes map[Host][]time.Time
}

// New returns an empty table.
func New(o Options) *Table {
	t := &Table{now: o.Now, ttl: o.TTL, uses: o.Uses, rows: map[string]*row{}, strikes: map[Host][]time.Time{}}
	if t.now == nil {
		t.now = time.Now
	}
	if t.ttl <= 0 {
		t.ttl = TTL
	}
	if t.uses <= 0 {
		t.uses = Uses
	}
	return t
}

// Mint enters r and returns its fresh ticket.
func (t *Table) Mint(r Row) (Ticket, error) {
	var b [secretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Ticket{}, fmt.Errorf("minting a ticket: %w", err)
	}
	s := base64.RawURLEncoding.EncodeToString(b[:])
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows[s] = &row{Row: r, expires: t.now().Add(t.ttl), uses: t.uses}
	return Ticket{secret: s}, nil
}

// Redeem spends one use of the ticket presented as secret by p and returns its row. It
// fails with ErrRefused, which also matches ErrViolation when this was p.Host's Burst-th
// invalid presentation within BurstWindow.
func (t *Table) Redeem(secret string, p Presentation) (Row, error) {
	return t.redeem(secret, p.Host, func(r *row) bool { return r.matches(p) })
}

// RedeemQuestion spends one use of a ticket presented with user/ask by owner on host h: a
// tool's Invocation ticket or a command's Command ticket, of exactly that host and owner.
// It refuses and strikes as Redeem does.
func (t *Table) RedeemQuestion(secret string, h Host, owner protocol.OwnerRef) (Row, error) {
	return t.redeem(secret, h, func(r *row) bool {
		return (r.Kind == Invocation || r.Kind == Command) && r.Host == h && r.Owner == owner
	})
}

// Look checks a ticket presented by owner on host h as RedeemQuestion does (a tool's or a
// command's, of exactly that host and owner; refused and struck alike) without spending a
// use: the fetch proxy ties each request to the invocation this way, since a plugin may
// fetch (poll a service) far more often than it calls the core.
func (t *Table) Look(secret string, h Host, owner protocol.OwnerRef) (Row, error) {
	return t.check(secret, h, func(r *row) bool {
		return (r.Kind == Invocation || r.Kind == Command) && r.Host == h && r.Owner == owner
	}, false)
}

func (t *Table) redeem(secret string, h Host, matches func(*row) bool) (Row, error) {
	return t.check(secret, h, matches, true)
}

func (t *Table) check(secret string, h Host, matches func(*row) bool, spend bool) (Row, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	r := t.rows[secret]
	switch {
	case r == nil || !matches(r):
		return Row{}, t.strikeLocked(h, now)
	case !now.Before(r.expires):
		delete(t.rows, secret)
		return Row{}, t.strikeLocked(h, now)
	case spend && r.uses <= 0:
		return Row{}, ErrRefused // valid, merely spent: no strike
	}
	if spend {
		r.uses--
	}
	return r.Row, nil
}

func (r *row) matches(p Presentation) bool {
	return r.Kind == p.Kind && r.Host == p.Host && r.Owner == p.Owner && r.Method == p.Method
}

// strikeLocked counts an invalid presentation against h.
//
// +checklocks:t.mu
func (t *Table) strikeLocked(h Host, now time.Time) error {
	kept := t.strikes[h][:0]
	for _, at := range t.strikes[h] {
		if now.Sub(at) < BurstWindow {
			kept = append(kept, at)
		}
	}
	kept = append(kept, now)
	t.strikes[h] = kept
	if len(kept) >= Burst {
		return violation
	}
	return ErrRefused
}

// Revoke removes a ticket (its invocation ended). Revoking twice is harmless.
func (t *Table) Revoke(tk Ticket) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.rows, tk.secret)
}

// RevokeOwner removes every ticket of the owner.
func (t *Table) RevokeOwner(o protocol.OwnerRef) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s, r := range t.rows {
		if r.Owner == o {
			delete(t.rows, s)
		}
	}
}

// RevokeHost removes every ticket minted for host h and forgets its strikes.
func (t *Table) RevokeHost(h Host) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s, r := range t.rows {
		if r.Host == h {
			delete(t.rows, s)
		}
	}
	delete(t.strikes, h)
}

// Len returns the number of live rows.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.rows)
}
