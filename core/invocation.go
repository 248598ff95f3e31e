package core

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/services"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/core/tickets"
	"github.com/hashicorp/go-hclog"
)

// Caps of core/call, per invocation (ARCHITECTURE.md, “Lifecycles and numbers”).
const (
	// MaxCoreCalls is how many core/call requests one invocation may make (its ticket's uses).
	MaxCoreCalls = tickets.Uses
	// MaxConcurrentCoreCalls is how many run at once; a further one waits for a slot.
	MaxConcurrentCoreCalls = 4
)

// invocation is one tool/call in flight whose tool may ask the core for core/call: its
// ticket, who asks (for the card and the keys), its workspace and approver, the caps, the
// deadline that pauses while a person decides, and the receipts.
type invocation struct {
	ticket    tickets.Ticket
	caller    gate.Caller
	others    int
	workspace string
	approver  Approver
	asker     Asker  // answers user/ask; nil: no person (NO_PROVIDER)
	kind      string // "tool" or "command"
	deadline  *pauseDeadline
	ctx       context.Context // ends with the invocation
	// callID, session and agent are the tool/call's id and its CallOptions' session and
	// agent: what the agent's services are told of the call (core/services).
	callID  string
	session string
	agent   string
	slots   chan struct{} // MaxConcurrentCoreCalls
	card    chan struct{} // one approval card at a time

	mu       sync.Mutex
	receipts []CoreCallReceipt // +checklocks:mu
	// active counts the core/calls being served; ended admits no more.
	active int           // +checklocks:mu
	ended  bool          // +checklocks:mu
	idle   chan struct{} // closed once ended and no core/call is served

	children *services.Children // the child agents it started; nil for a command
}

// serviceCall is the call an agent service is told of: inv as the core knows it.
func (inv *invocation) serviceCall() services.Call {
	return services.Call{PluginID: inv.caller.PluginID, Tool: inv.caller.Tool, CallID: inv.callID, SessionID: inv.session, AgentID: inv.agent, Workspace: inv.workspace}
}

// enter counts a core/call in; false once the invocation ended.
func (inv *invocation) enter() bool {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.ended {
		return false
	}
	inv.active++
	return true
}

func (inv *invocation) leave() {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.active--; inv.ended && inv.active == 0 {
		close(inv.idle)
	}
}

// end admits no more core/calls; the channel is closed once those being served returned.
func (inv *invocation) end() <-chan struct{} {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if !inv.ended {
		inv.ended = true
		if inv.active == 0 {
			close(inv.idle)
		}
	}
	return inv.idle
}

func (inv *invocation) record(r CoreCallReceipt) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if len(inv.receipts) < MaxCoreCalls {
		inv.receipts = append(inv.receipts, r)
	}
}

func (inv *invocation) takeReceipts() []CoreCallReceipt {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return inv.receipts
}

// acquire takes one of ch's tokens, or fails when ctx ends first.
func acquire(ctx context.Context, ch chan struct{}) error {
	select {
	case ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// coreCalls is the Manager's part of the invocations: the ticket table, the invocations in
// flight by call id, and what serves their requests to the core (core/call, user/ask:
// corecall.go). Open sets the fields below timeout once, before any host runs.
type coreCalls struct {
	ids     callIDs // the call ids sent to hosts
	once    sync.Once
	table   *tickets.Table
	mu      sync.Mutex
	byID    map[string]*invocation // +checklocks:mu
	clock   supervisor.Clock       // nil: the wall clock (see pauseDeadline)
	timeout time.Duration          // 0: ToolCallDeadline (tests shorten it)

	log  hclog.Logger
	gate *gate.Gate
	reg  *registry.Registry // the owner layer's
	nat  nativeTable
	svc  services.Provided // the agent services the embedder provides
	pre  *preHooks
}

// tickets returns the ticket table, made on first use.
func (c *coreCalls) tickets() *tickets.Table {
	c.once.Do(func() { c.table = tickets.New(tickets.Options{}) })
	return c.table
}

func (c *coreCalls) add(id string, inv *invocation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string]*invocation{}
	}
	c.byID[id] = inv
}

func (c *coreCalls) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byID, id)
}

func (c *coreCalls) get(id string) *invocation {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byID[id]
}

// endInvocation ends inv: its pending core/calls are cancelled (their cards withdrawn) and
// waited for, up to rpc.CancelGrace, so that their receipts are in the result.
func (inv *invocation) finish(cancel context.CancelCauseFunc) []CoreCallReceipt {
	idle := inv.end()
	cancel(errInvocationEnded)
	select {
	case <-idle: // no core/call was being served: the common case needs no timer
		return inv.takeReceipts()
	default:
	}
	t := time.NewTimer(rpc.CancelGrace)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
	return inv.takeReceipts()
}

// errInvocationEnded is why a core/call still pending when its tool/call ended was cancelled.
var errInvocationEnded = errors.New("the tool call that asked has ended")

// deadlineError is why an invocation's deadline cancelled it: ErrTimeout, naming the method
// and the deadline. Its text is built only when it is read, not on every call.
type deadlineError struct {
	method string
	after  time.Duration
}

func (e *deadlineError) Error() string {
	return fmt.Sprintf("%s: %s after %s", ErrTimeout, e.method, e.after)
}

func (e *deadlineError) Unwrap() error { return ErrTimeout }

// pauseDeadline is a deadline that does not run while paused: an invocation's tool/call
// deadline stands still while one of its core/calls waits for a person's decision
// (ARCHITECTURE.md, “Approval”), so a person taking a minute on a card does not time the
// tool out. expire runs once, when the running time reaches the deadline.
//
// Its clock is the supervisor's Clock, the one clock interface of the module, and not
// testing/synctest alone: the test that needs a fake one (corecall_test.go, a card pausing
// the deadline) runs a real host, a runtime process and its pipes, which a synctest bubble
// cannot hold.
type pauseDeadline struct {
	clock  supervisor.Clock
	expire func()

	mu      sync.Mutex
	left    time.Duration // +checklocks:mu
	since   time.Time     // +checklocks:mu
	pauses  int           // +checklocks:mu
	timer   rpc.Timer     // +checklocks:mu
	arm     uint64        // +checklocks:mu
	stopped bool          // +checklocks:mu
}

func startDeadline(c supervisor.Clock, d time.Duration, expire func()) *pauseDeadline {
	if c == nil {
		c = supervisor.RealClock{}
	}
	p := &pauseDeadline{clock: c, expire: expire, left: d}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runLocked()
	return p
}

// runLocked starts a running stretch.
//
// +checklocks:p.mu
func (p *pauseDeadline) runLocked() {
	p.since = p.clock.Now()
	p.arm++
	arm := p.arm
	p.timer = p.clock.AfterFunc(p.left, func() { p.fire(arm) })
}

func (p *pauseDeadline) fire(arm uint64) {
	p.mu.Lock()
	live := !p.stopped && p.pauses == 0 && p.arm == arm
	if live {
		p.stopped = true
	}
	p.mu.Unlock()
	if live {
		p.expire()
	}
}

// pause stops the deadline until the returned resume is called; pauses nest.
func (p *pauseDeadline) pause() (resume func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pauses == 0 && !p.stopped {
		p.timer.Stop()
		p.arm++
		p.left -= p.clock.Now().Sub(p.since)
		p.left = max(p.left, 0)
	}
	p.pauses++
	var once sync.Once
	return func() { once.Do(p.resume) }
}

func (p *pauseDeadline) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pauses--
	if p.pauses == 0 && !p.stopped {
		p.runLocked()
	}
}

// stop ends the deadline without expiring.
func (p *pauseDeadline) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	p.timer.Stop()
}

// nativeTable is the Manager's native tools and their schemas, compiled once at Open.
type nativeTable struct {
	set     *natives.Set
	schemas map[string]*registry.InputSchema
}

// openNatives returns the native table of o (natives.Builtin when o gives none, its
// writes protecting the files and folders protected: the cwx home, the hooks files). Every
// schema must compile under the registration rules.
func openNatives(o Options, protected []string) (nativeTable, error) {
	t := nativeTable{set: o.Natives, schemas: map[string]*registry.InputSchema{}}
	if t.set == nil {
		t.set = natives.BuiltinWith(natives.WriteOptions{Protected: protected})
	}
	for _, sp := range t.set.Specs() {
		s, err := registry.CompileInputSchema(sp.Name, sp.InputSchema)
		if err != nil {
			return nativeTable{}, fmt.Errorf("native tool `%s`: %w", sp.Name, err)
		}
		t.schemas[sp.Name] = s
	}
	return t, nil
}

// infos lists the native tools as ToolInfo, origin OriginNative.
func (t nativeTable) infos() []ToolInfo {
	out := make([]ToolInfo, 0, t.set.Len())
	for _, sp := range t.set.Specs() {
		out = append(out, ToolInfo{Name: sp.Name, Origin: OriginNative, Description: sp.Description, InputSchema: sp.InputSchema, ReadOnly: sp.ReadOnly})
	}
	return out
}

// OriginNative is the origin of a native tool in ToolInfo.
const OriginNative = "native"

// callIDs numbers the calls sent to hosts.
type callIDs struct{ atomic.Uint64 }
