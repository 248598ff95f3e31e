package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/tickets"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// callOutcome is what the fixture's ask_core reports of one exec.core.call.
type callOutcome struct {
	OK      bool   `json:"ok"`
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
	Name    string `json:"name"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// cardApprover answers each card with answer and records it.
type cardApprover struct {
	mu     sync.Mutex
	cards  []gate.Card
	answer func(ctx context.Context, c gate.Card) (gate.Decision, error)
}

func (a *cardApprover) Approve(ctx context.Context, c gate.Card) (gate.Decision, error) {
	a.mu.Lock()
	a.cards = append(a.cards, c)
	a.mu.Unlock()
	if a.answer == nil {
		return gate.AllowOnce, nil
	}
	return a.answer(ctx, c)
}

// coreCards returns the cards raised by core/call (not the outer tool's).
func (a *cardApprover) coreCards() []gate.Card {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []gate.Card
	for _, c := range a.cards {
		if strings.HasPrefix(c.Key, "extcall:") {
			out = append(out, c)
		}
	}
	return out
}

// coreEnv is a Manager with the core-call fixture (and fixture-tool, another extension)
// live, and a workspace holding a.txt.
type coreEnv struct {
	m  *Manager
	ws string
	a  *cardApprover
}

func newCoreEnv(t *testing.T, rt testenv.Runtime, posture string, set *natives.Set) *coreEnv {
	return newCoreEnvWith(t, rt, posture, set, nil)
}

// newCoreEnvWith is newCoreEnv with rec recording the tickets sent (nil: none).
func newCoreEnvWith(t *testing.T, rt testenv.Runtime, posture string, set *natives.Set, rec *ticketRecorder) *coreEnv {
	t.Helper()
	e := newEnv(t, rt)
	e.install("core-call", "tool")
	a := &cardApprover{}
	m := e.open(func(o *Options) { o.Approval = posture; o.Approver = a; o.Natives = set })
	if rec != nil {
		setWrap(m, rec.wrap)
	}
	reconcile(t, m)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\nbeta\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &coreEnv{m: m, ws: ws, a: a}
}

// ask calls ask_core with args and decodes its structured result into out.
func (c *coreEnv) ask(t *testing.T, args string, out any) ToolResult {
	t.Helper()
	res, err := c.m.CallTool(context.Background(), "ask_core", input(args), CallOptions{Workspace: c.ws})
	if err != nil {
		t.Fatalf("ask_core %s: %v", args, err)
	}
	if err := json.Unmarshal(res.Structured, out); err != nil {
		t.Fatalf("ask_core %s: result %s: %v", args, res.Structured, err)
	}
	return res
}

func TestCoreCallAutoReadRunsWithoutACard(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		c := newCoreEnv(t, rt, "ask", nil)
		var got callOutcome
		res := c.ask(t, `{"name":"read_file","input":{"file_path":"a.txt"}}`, &got)
		if !got.OK || got.IsError || !strings.Contains(got.Text, "alpha") || !strings.Contains(got.Text, "beta") {
			t.Fatalf("read_file = %+v", got)
		}
		if n := len(c.a.coreCards()); n != 0 {
			t.Fatalf("an auto-eligible read raised %d cards", n)
		}
		if len(res.CoreCalls) != 1 || res.CoreCalls[0] != (CoreCallReceipt{Name: "read_file", Decision: "auto", Status: "ok", Bytes: len(got.Text)}) {
			t.Fatalf("receipts = %+v", res.CoreCalls)
		}
		js, _ := json.Marshal(res)
		if !strings.Contains(string(js), `"core_calls":[{"name":"read_file","decision":"auto","status":"ok"`) {
			t.Fatalf("JSON form lacks the receipts: %s", js)
		}
	})
}

func TestCoreCallShellAlwaysAsks(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		for _, posture := range []string{"ask", "auto"} {
			t.Run(posture, func(t *testing.T) {
				c := newCoreEnv(t, rt, posture, nil)
				c.a.answer = func(context.Context, gate.Card) (gate.Decision, error) { return gate.AllowSession, nil }
				for i := range 2 { // a session grant is never taken: asked every time
					var got callOutcome
					c.ask(t, `{"name":"shell","input":{"command":"echo hi-from-shell"}}`, &got)
					if !got.OK || !strings.Contains(got.Text, "hi-from-shell") {
						t.Fatalf("shell %d = %+v", i, got)
					}
				}
				cards := c.a.coreCards()
				if len(cards) != 2 {
					t.Fatalf("%d core/call cards; want 2 (one per call)", len(cards))
				}
				want := "Requested by `extension:fixture-core-call` from inside its tool `ask_core` (core/call): core tool `shell`"
				if cards[0].Title != want || !cards[0].Forced || !strings.HasPrefix(cards[0].Key, "extcall:ext:fixture-core-call@") {
					t.Fatalf("card = %+v", cards[0])
				}
				c.a.answer = func(_ context.Context, card gate.Card) (gate.Decision, error) {
					if strings.HasPrefix(card.Key, "extcall:") {
						return gate.DenyDecision, nil
					}
					return gate.AllowOnce, nil
				}
				var denied callOutcome
				res := c.ask(t, `{"name":"shell","input":{"command":"echo no"}}`, &denied)
				if denied.OK || denied.Code != "denied" || denied.Name != "CoreCallError" {
					t.Fatalf("denied shell = %+v", denied)
				}
				if len(res.CoreCalls) != 1 || res.CoreCalls[0].Decision != "denied" {
					t.Fatalf("receipts = %+v", res.CoreCalls)
				}
			})
		}
	})
}

func TestCoreCallRefusesBeforeTheGate(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		c := newCoreEnv(t, rt, "ask", nil)
		names := []string{"ask_core", "Ask-Core", "ASK_CORE", "echo_text", "Echo-Text", "ECHO_TEXT",
			"mcp_fs_read", "MCP-fs-read", "Mcp_x", "request_plugin_install", "Request-Plugin-Install",
			"send_later", "Send-Later", "no_such_tool", "Read_File", "READ-FILE", "Shell"}
		for _, name := range names {
			var got callOutcome
			res := c.ask(t, `{"name":"`+name+`","input":{"file_path":"a.txt","command":"true"}}`, &got)
			if got.OK || got.Code != "refused" {
				t.Errorf("%s: %+v; want refused", name, got)
			}
			if len(res.CoreCalls) != 1 || res.CoreCalls[0].Status != "refused" {
				t.Errorf("%s: receipts %+v", name, res.CoreCalls)
			}
		}
		if n := len(c.a.coreCards()); n != 0 {
			t.Fatalf("refused names raised %d cards", n)
		}
	})
}

func TestCoreCallConfinedToTheWorkspace(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		c := newCoreEnv(t, rt, "auto", nil)
		outside := t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(c.ws, "link")); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"../secret", filepath.Join(outside, "secret"), "link", "/etc/passwd"} {
			var got callOutcome
			c.ask(t, `{"name":"read_file","input":{"file_path":"`+p+`"}}`, &got)
			if got.OK || got.Code != "refused" || strings.Contains(got.Message, "s3cret") {
				t.Errorf("read_file %s = %+v; want refused", p, got)
			}
		}
	})
}

func TestCoreCallCapOfFiftyPerInvocation(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		c := newCoreEnv(t, rt, "auto", nil)
		var got []callOutcome
		res := c.ask(t, `{"mode":"many","n":51,"name":"read_file","input":{"file_path":"a.txt"}}`, &got)
		for i, g := range got[:50] {
			if !g.OK {
				t.Fatalf("call %d: %+v", i+1, g)
			}
		}
		if last := got[50]; last.OK || last.Code != "refused" {
			t.Fatalf("call 51 = %+v; want refused", last)
		}
		if len(res.CoreCalls) != 50 {
			t.Fatalf("%d receipts; want 50 (the refused ticket finds no invocation)", len(res.CoreCalls))
		}
		var again callOutcome // a new invocation has a new budget
		c.ask(t, `{"name":"read_file","input":{"file_path":"a.txt"}}`, &again)
		if !again.OK {
			t.Fatalf("next invocation: %+v", again)
		}
	})
}

// blockTool is an embedder's auto-eligible native that runs until released, counting how
// many run at once.
type blockTool struct {
	mu            sync.Mutex
	running, peak int
	release       chan struct{}
}

func (b *blockTool) Spec() natives.Spec {
	return natives.Spec{Name: "block", Description: "waits", InputSchema: json.RawMessage(`{"type":"object"}`), AutoEligible: true}
}

func (b *blockTool) Run(ctx context.Context, _ natives.Call) (natives.Result, error) {
	b.mu.Lock()
	b.running++
	b.peak = max(b.peak, b.running)
	b.mu.Unlock()
	defer func() { b.mu.Lock(); b.running--; b.mu.Unlock() }()
	select {
	case <-b.release:
		return natives.Result{Text: "released"}, nil
	case <-ctx.Done():
		return natives.Result{}, ctx.Err()
	}
}

func (b *blockTool) now() int { b.mu.Lock(); defer b.mu.Unlock(); return b.running }

func withBlock(t *testing.T) (*natives.Set, *blockTool) {
	b := &blockTool{release: make(chan struct{})}
	set, err := natives.BuiltinWith(natives.WriteOptions{}).With(b)
	if err != nil {
		t.Fatal(err)
	}
	return set, b
}

func TestCoreCallFifthWaitsForASlot(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		set, b := withBlock(t)
		c := newCoreEnv(t, rt, "auto", set)
		done := make(chan []callOutcome, 1)
		go func() {
			var got []callOutcome
			c.ask(t, `{"mode":"parallel","n":5,"name":"block"}`, &got)
			done <- got
		}()
		eventually(t, 20*time.Second, "four running", func() bool { return b.now() == MaxConcurrentCoreCalls })
		close(b.release)
		got := <-done
		for i, g := range got {
			if !g.OK || g.Text != "released" {
				t.Fatalf("call %d = %+v", i, g)
			}
		}
		if b.peak != MaxConcurrentCoreCalls {
			t.Fatalf("peak concurrency %d; want %d", b.peak, MaxConcurrentCoreCalls)
		}
	})
}

func TestCoreCallCancelWithdrawsTheCard(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		c := newCoreEnv(t, rt, "auto", nil)
		withdrawn := make(chan error, 1)
		c.a.answer = func(ctx context.Context, card gate.Card) (gate.Decision, error) {
			if err := os.WriteFile(filepath.Join(c.ws, "flag"), nil, 0o600); err != nil {
				return gate.DenyDecision, err
			}
			<-ctx.Done()
			withdrawn <- context.Cause(ctx)
			return gate.DenyDecision, ctx.Err()
		}
		var got callOutcome
		res := c.ask(t, `{"mode":"cancel","name":"shell","input":{"command":"echo never"}}`, &got)
		if got.OK || got.Code != "cancelled" {
			t.Fatalf("cancelled shell = %+v", got)
		}
		if cause := <-withdrawn; !errors.Is(cause, rpc.ErrHostCancelled) {
			t.Fatalf("card withdrawn because %v; want the host's $/cancel", cause)
		}
		var shell []CoreCallReceipt
		for _, r := range res.CoreCalls {
			if r.Name == "shell" {
				shell = append(shell, r)
			}
		}
		if len(shell) != 1 || shell[0].Decision != "cancelled" || shell[0].Status != "cancelled" {
			t.Fatalf("shell receipts = %+v", shell)
		}
	})
}

// fakeClock is a deadline clock moved by hand.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	live bool
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) rpc.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f, live: true}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.live
	t.live = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.live
	t.at, t.live = t.c.now.Add(d), true
	return was
}

// advance moves the clock and runs the timers that came due.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if t.live && !t.at.After(c.now) {
			t.live = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

func TestCoreCallCardDoesNotTimeTheToolOut(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		set, b := withBlock(t)
		c := newCoreEnv(t, rt, "auto", set)
		clk := &fakeClock{now: time.Unix(1_000_000, 0)}
		c.m.cc.clock, c.m.cc.timeout = clk, time.Second
		c.a.answer = func(context.Context, gate.Card) (gate.Decision, error) {
			clk.advance(time.Hour) // a person takes an hour: the deadline stands still
			return gate.AllowOnce, nil
		}
		var got callOutcome
		c.ask(t, `{"name":"shell","input":{"command":"echo after-an-hour"}}`, &got)
		if !got.OK || !strings.Contains(got.Text, "after-an-hour") {
			t.Fatalf("shell after a long card = %+v", got)
		}

		errc := make(chan error, 1) // without a card the deadline runs
		go func() {
			_, err := c.m.CallTool(context.Background(), "ask_core", input(`{"name":"block"}`), CallOptions{Workspace: c.ws})
			errc <- err
		}()
		eventually(t, 20*time.Second, "block running", func() bool { return b.now() == 1 })
		clk.advance(time.Second)
		if err := <-errc; !errors.Is(err, ErrTimeout) {
			t.Fatalf("a tool past its deadline: %v; want ErrTimeout", err)
		}
	})
}

func TestCoreCallTicketNeverShownToPluginCode(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		rec := &ticketRecorder{}
		c := newCoreEnvWith(t, rt, "auto", nil, rec)
		var probe struct {
			HasCore  bool     `json:"hasCore"`
			Keys     []string `json:"keys"`
			CoreKeys []string `json:"coreKeys"`
			JSON     string   `json:"json"`
			Frozen   bool     `json:"frozen"`
			Stack    string   `json:"stack"`
		}
		res := c.ask(t, `{"mode":"probe"}`, &probe)
		tk := rec.last()
		if tk == "" || !probe.HasCore || !probe.Frozen || strings.Join(probe.CoreKeys, ",") != "call" {
			t.Fatalf("probe = %+v (ticket sent: %v)", probe, tk != "")
		}
		for what, s := range map[string]string{"JSON.stringify(exec)": probe.JSON, "a stack trace": probe.Stack,
			"the keys": strings.Join(probe.Keys, ","), "the result": string(res.Structured)} {
			if strings.Contains(s, tk) {
				t.Errorf("%s shows the ticket", what)
			}
		}
		var local []callOutcome
		res = c.ask(t, `{"mode":"local"}`, &local)
		for i, l := range local {
			if l.OK || l.Code != "refused" {
				t.Errorf("local refusal %d = %+v", i, l)
			}
		}
		if len(res.CoreCalls) != 0 {
			t.Fatalf("local refusals reached the core: %+v", res.CoreCalls)
		}
	})
}

// ticketRecorder remembers the ticket of the last tool/call sent.
type ticketRecorder struct {
	mu sync.Mutex
	tk string
}

func (r *ticketRecorder) wrap(h owners.Host) owners.Host { return ticketHost{h, r} }

func (r *ticketRecorder) last() string { r.mu.Lock(); defer r.mu.Unlock(); return r.tk }

type ticketHost struct {
	owners.Host
	r *ticketRecorder
}

func (h ticketHost) Call(ctx context.Context, method string, params any, o rpc.CallOpts) (*protocol.Message, error) {
	if p, ok := params.(protocol.ToolCallParams); ok {
		h.r.mu.Lock()
		h.r.tk = p.Ticket
		h.r.mu.Unlock()
	}
	return h.Host.Call(ctx, method, params, o)
}

// TestCoreCallSpoofing presents a live invocation's ticket as another owner, tier or
// host, and presents tickets after the invocation ended; a burst of them is a violation.
func TestCoreCallSpoofing(t *testing.T) {
	rt := testenv.Node(t)
	set, b := withBlock(t)
	rec := &ticketRecorder{}
	c := newCoreEnvWith(t, rt, "auto", set, rec)
	done := make(chan error, 1)
	go func() {
		_, err := c.m.CallTool(context.Background(), "ask_core", input(`{"name":"block"}`), CallOptions{Workspace: c.ws})
		done <- err
	}()
	eventually(t, 20*time.Second, "block running", func() bool { return b.now() == 1 })
	tk := rec.last()
	owner := ownerOf(t, c.m, "fixture-core-call").Ref
	other := ownerOf(t, c.m, "fixture-tool").Ref
	gen := c.m.own.Current("fixture-core-call").Generation()
	read := &protocol.CoreCallParams{Owner: owner, Ticket: tk, Name: "read_file", Input: input(`{"file_path":"a.txt"}`)}
	spoof := func(edit func(p *protocol.CoreCallParams, tier *protocol.HostKey, gen *uint64)) error {
		p, tier, g := *read, pluginHost, gen
		edit(&p, &tier, &g)
		_, err := c.m.cc.serveCoreCall(context.Background(), tier, g, &p)
		return err
	}
	cases := []struct {
		name string
		edit func(p *protocol.CoreCallParams, tier *protocol.HostKey, gen *uint64)
	}{
		{"another plugin's owner", func(p *protocol.CoreCallParams, _ *protocol.HostKey, _ *uint64) { p.Owner = other }},
		{"another owner token", func(p *protocol.CoreCallParams, _ *protocol.HostKey, _ *uint64) { p.Owner.OwnerToken += "x" }},
		{"the other tier", func(_ *protocol.CoreCallParams, tier *protocol.HostKey, _ *uint64) { *tier = builtinHost }},
		{"another host of the tier", func(_ *protocol.CoreCallParams, tier *protocol.HostKey, _ *uint64) { tier.Group = "fixture-tool" }},
		{"a later host generation", func(_ *protocol.CoreCallParams, _ *protocol.HostKey, g *uint64) { *g++ }},
		{"a forged ticket", func(p *protocol.CoreCallParams, _ *protocol.HostKey, _ *uint64) { p.Ticket = "forged" }},
	}
	for _, tc := range cases {
		var re *protocol.RPCError
		if err := spoof(tc.edit); !errors.As(err, &re) || re.Code != protocol.CodeRefused || re.Message != errTicketRefused.Message {
			t.Errorf("%s: %v; want the one refusal", tc.name, err)
		}
	}
	if err := spoof(func(*protocol.CoreCallParams, *protocol.HostKey, *uint64) {}); err != nil {
		t.Fatalf("the genuine presentation: %v", err)
	}
	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := spoof(func(*protocol.CoreCallParams, *protocol.HostKey, *uint64) {}); err == nil || errors.Is(err, rpc.ErrViolation) {
		t.Fatalf("after the invocation ended: %v; want refused", err)
	}
	if n := c.m.cc.tickets().Len(); n != 0 {
		t.Fatalf("%d tickets live after every invocation ended", n)
	}
	// Four strikes against this host so far (three spoofs, one after the end; the other
	// tier's and generation's count against those hosts): the eighth is a violation.
	for i := 5; i <= tickets.Burst; i++ {
		err := spoof(func(p *protocol.CoreCallParams, _ *protocol.HostKey, _ *uint64) { p.Ticket = "again" })
		if got := errors.Is(err, rpc.ErrViolation); got != (i == tickets.Burst) {
			t.Fatalf("strike %d: %v", i, err)
		}
	}
	if !errors.Is(tickets.ErrViolation, rpc.ErrViolation) {
		t.Fatal("tickets.ErrViolation is not the protocol violation kind")
	}
}
