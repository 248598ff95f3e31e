package tickets

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// clock is an injected clock moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

var (
	owner = protocol.OwnerRef{PluginID: "acme", Generation: 3, OwnerToken: "tok-a"}
	host  = Host{Key: protocol.SharedHost(protocol.TierPlugin), Generation: 2}
	row0  = Row{Kind: Invocation, Host: host, Owner: owner, Method: protocol.MethodCoreCall, Target: Target{CallID: "tool-1", Tool: "t"}}
	pres0 = Presentation{Kind: Invocation, Host: host, Owner: owner, Method: protocol.MethodCoreCall}
)

func newTable(t *testing.T) (*Table, *clock) {
	t.Helper()
	c := &clock{t: time.Unix(1_000_000, 0)}
	return New(Options{Now: c.now}), c
}

func mint(t *testing.T, tb *Table) Ticket {
	t.Helper()
	tk, err := tb.Mint(row0)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestRedeemChecksEveryField(t *testing.T) {
	tests := []struct {
		name string
		edit func(p *Presentation)
		ok   bool
	}{
		{"matching", func(*Presentation) {}, true},
		{"no kind", func(p *Presentation) { p.Kind = 0 }, false},
		{"other tier", func(p *Presentation) { p.Host.Key.Tier = protocol.TierBuiltin }, false},
		{"another host of the tier, same generation", func(p *Presentation) { p.Host.Key.Group = "other" }, false},
		{"other host generation", func(p *Presentation) { p.Host.Generation++ }, false},
		{"other plugin", func(p *Presentation) { p.Owner.PluginID = "other" }, false},
		{"other owner generation", func(p *Presentation) { p.Owner.Generation++ }, false},
		{"other owner token", func(p *Presentation) { p.Owner.OwnerToken = "tok-b" }, false},
		{"other method", func(p *Presentation) { p.Method = protocol.MethodToolCall }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, _ := newTable(t)
			tk := mint(t, tb)
			p := pres0
			tt.edit(&p)
			got, err := tb.Redeem(tk.Reveal(), p)
			if tt.ok {
				if err != nil || got != row0 {
					t.Fatalf("Redeem = %+v, %v; want the row", got, err)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || err.Error() != ErrRefused.Error() {
				t.Fatalf("Redeem error = %v; want exactly ErrRefused", err)
			}
		})
	}
}

func TestUnknownExpiredExhaustedRefusedAlike(t *testing.T) {
	tb, c := newTable(t)
	if _, err := tb.Redeem("nope", pres0); err == nil || err.Error() != ErrRefused.Error() {
		t.Fatalf("unknown: %v", err)
	}
	spent := mint(t, tb)
	for i := range Uses {
		if _, err := tb.Redeem(spent.Reveal(), pres0); err != nil {
			t.Fatalf("use %d: %v", i+1, err)
		}
	}
	if _, err := tb.Redeem(spent.Reveal(), pres0); err == nil || err.Error() != ErrRefused.Error() {
		t.Fatalf("use %d: %v; want ErrRefused", Uses+1, err)
	}
	old := mint(t, tb)
	c.advance(TTL - time.Nanosecond)
	if _, err := tb.Redeem(old.Reveal(), pres0); err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	c.advance(time.Nanosecond)
	if _, err := tb.Redeem(old.Reveal(), pres0); err == nil || err.Error() != ErrRefused.Error() {
		t.Fatalf("at expiry: %v", err)
	}
}

func TestBurstOfInvalidPresentationsIsAViolation(t *testing.T) {
	tb, c := newTable(t)
	spent := mint(t, tb)
	for range Uses {
		_, _ = tb.Redeem(spent.Reveal(), pres0)
	}
	for range 3 * Burst { // a valid ticket out of uses is no strike
		if _, err := tb.Redeem(spent.Reveal(), pres0); errors.Is(err, ErrViolation) {
			t.Fatal("an exhausted ticket counted as a strike")
		}
	}
	for i := 1; i < Burst; i++ {
		if _, err := tb.Redeem("forged", pres0); errors.Is(err, ErrViolation) {
			t.Fatalf("strike %d is already a violation", i)
		}
	}
	c.advance(BurstWindow) // the first seven fall out of the window
	if _, err := tb.Redeem("forged", pres0); errors.Is(err, ErrViolation) {
		t.Fatal("strikes older than the window counted")
	}
	other := pres0
	other.Host.Generation++
	for range Burst - 1 {
		_, _ = tb.Redeem("forged", other)
	}
	for i := 2; i < Burst; i++ {
		if _, err := tb.Redeem("forged", pres0); errors.Is(err, ErrViolation) {
			t.Fatalf("another host's strikes counted (strike %d)", i)
		}
	}
	_, err := tb.Redeem("forged", pres0)
	if !errors.Is(err, ErrViolation) || !errors.Is(err, ErrRefused) {
		t.Fatalf("eighth strike within the window: %v; want ErrViolation and ErrRefused", err)
	}
}

func TestRevocation(t *testing.T) {
	otherOwner := owner
	otherOwner.Generation++
	otherHost := host
	otherHost.Generation++
	tests := []struct {
		name   string
		revoke func(tb *Table, tk Ticket)
		gone   bool
	}{
		{"invocation end", func(tb *Table, tk Ticket) { tb.Revoke(tk) }, true},
		{"owner revoked", func(tb *Table, _ Ticket) { tb.RevokeOwner(owner) }, true},
		{"host exit", func(tb *Table, _ Ticket) { tb.RevokeHost(host) }, true},
		{"another owner revoked", func(tb *Table, _ Ticket) { tb.RevokeOwner(otherOwner) }, false},
		{"another host exit", func(tb *Table, _ Ticket) { tb.RevokeHost(otherHost) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb, _ := newTable(t)
			tk := mint(t, tb)
			tt.revoke(tb, tk)
			_, err := tb.Redeem(tk.Reveal(), pres0)
			if gone := err != nil; gone != tt.gone {
				t.Fatalf("after revocation Redeem err = %v; want gone %v", err, tt.gone)
			}
			if tt.gone && tb.Len() != 0 {
				t.Fatalf("Len = %d after revocation", tb.Len())
			}
		})
	}
}

func TestTicketIsOpaqueAndRedacted(t *testing.T) {
	tb, _ := newTable(t)
	tk := mint(t, tb)
	raw, err := base64.RawURLEncoding.DecodeString(tk.Reveal())
	if err != nil || len(raw)*8 < 240 {
		t.Fatalf("ticket has %d bits (%v); want at least 240", len(raw)*8, err)
	}
	if again := mint(t, tb); again.Reveal() == tk.Reveal() {
		t.Fatal("two mints gave one ticket")
	}
	js, _ := json.Marshal(struct{ T Ticket }{tk})
	forms := []string{tk.String(), fmt.Sprint(tk), fmt.Sprintf("%v %+v %#v %s %q %x %d", tk, tk, tk, tk, tk, tk, tk),
		fmt.Sprintf("%v", []Ticket{tk}), string(js), fmt.Sprintf("%+v", struct{ T Ticket }{tk})}
	for _, f := range forms {
		if strings.Contains(f, tk.Reveal()) || !strings.Contains(f, "redacted") {
			t.Errorf("string form %q is not redacted", f)
		}
	}
}

// TestRedeemQuestion: user/ask redeems a tool's or a command's ticket of exactly its host and
// owner; a command's ticket never serves core/call; a mismatch strikes like Redeem's.
func TestRedeemQuestion(t *testing.T) {
	tb, _ := newTable(t)
	tool := mint(t, tb)
	cmdRow := row0
	cmdRow.Kind, cmdRow.Method, cmdRow.Target = Command, protocol.MethodUserAsk, Target{CallID: "cmd-1", Tool: "review"}
	cmd, err := tb.Mint(cmdRow)
	if err != nil {
		t.Fatal(err)
	}
	other := owner
	other.Generation++
	for _, c := range []struct {
		name   string
		secret string
		host   Host
		owner  protocol.OwnerRef
		want   string // the row's call id, or "" for refused
	}{
		{"a tool's ticket", tool.Reveal(), host, owner, "tool-1"},
		{"a command's ticket", cmd.Reveal(), host, owner, "cmd-1"},
		{"another owner generation", cmd.Reveal(), host, other, ""},
		{"another host", cmd.Reveal(), Host{Key: protocol.SharedHost(protocol.TierPlugin), Generation: 9}, owner, ""},
		{"an unknown ticket", "nope", host, owner, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := tb.RedeemQuestion(c.secret, c.host, c.owner)
			if c.want == "" {
				if !errors.Is(err, ErrRefused) {
					t.Fatalf("got %+v, %v; want ErrRefused", r, err)
				}
				return
			}
			if err != nil || r.Target.CallID != c.want {
				t.Fatalf("got %+v, %v; want call %s", r, err, c.want)
			}
		})
	}
	if _, err := tb.Redeem(cmd.Reveal(), Presentation{Kind: Invocation, Host: host, Owner: owner, Method: protocol.MethodCoreCall}); !errors.Is(err, ErrRefused) {
		t.Fatalf("a command's ticket served core/call: %v", err)
	}
}

// TestLookSpendsNoUse: Look admits what RedeemQuestion admits, refuses and strikes alike,
// and leaves the uses for core/call.
func TestLookSpendsNoUse(t *testing.T) {
	tb := New(Options{Uses: 2})
	tk, err := tb.Mint(row0)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if r, err := tb.Look(tk.Reveal(), host, owner); err != nil || r.Target.CallID != "tool-1" {
			t.Fatalf("look: %+v, %v", r, err)
		}
	}
	for i := range 2 {
		if _, err := tb.Redeem(tk.Reveal(), pres0); err != nil {
			t.Fatalf("redeem %d after the looks: %v", i+1, err)
		}
	}
	if _, err := tb.Look(tk.Reveal(), host, owner); err != nil {
		t.Fatalf("look at a spent ticket: %v; want admitted (its invocation is live)", err)
	}
	other := owner
	other.OwnerToken = "tok-b"
	if _, err := tb.Look(tk.Reveal(), host, other); !errors.Is(err, ErrRefused) {
		t.Fatalf("look by another owner: %v", err)
	}
	var violation error
	for range Burst {
		_, violation = tb.Look("nope", host, owner)
	}
	if !errors.Is(violation, ErrViolation) {
		t.Fatalf("a burst of invalid looks: %v; want a violation", violation)
	}
}
