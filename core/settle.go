package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/rpc"
)

// replacedWait bounds how long a call whose host ended before it was sent waits for its
// plugin to be live again on the next incarnation: a restart, the replay of the innocent
// owners and one suspect's activation deadline.
const replacedWait = 3 * ActivateDeadline

// lookupRunnable takes the call's snapshot (lookup) once the target's host can run it. A
// JS host runs its plugins on one thread: while another plugin's activation is in flight on
// the same incarnation, that activation may have blocked the thread for good (an apply that
// never yields), and a call sent now would only fail when the heartbeat or the activation
// deadline ends the host, although its own plugin is innocent. So, only while an
// activation is in flight there, the call first pings the host: an answer means the thread
// runs and the call is sent; a host that ends under the ping never received the call, which
// takes a new snapshot on the next incarnation, where the suspect replay (lifecycle.go)
// activates the culprit alone, after the others. Without an activation in flight this costs
// one look at the owner table.
func (m *Manager) lookupRunnable(ctx context.Context, k *callKind, name string) (target, error) {
	tg, err := m.lookup(k, name)
	if err != nil || !m.activatingBeside(tg.o) {
		return tg, err
	}
	var changes <-chan Change
	var failed *owner // the owner whose host ended under the ping
	limit := time.NewTimer(replacedWait)
	defer limit.Stop()
	for {
		if err == nil && tg.o != failed {
			if !m.activatingBeside(tg.o) {
				return tg, nil
			}
			perr := m.probe(ctx, tg.o)
			if perr == nil {
				return tg, nil
			}
			if ctx.Err() != nil {
				return target{}, m.callError(k.name, name, perr, ctx)
			}
			failed = tg.o
			if changes == nil { // subscribe, then look again: no change is missed
				wctx, cancel := context.WithCancel(ctx)
				defer cancel()
				changes = m.Changes(wctx)
				tg, err = m.lookup(k, name)
				continue
			}
		}
		select { // not live yet on the next incarnation: wait for the catalog to change
		case _, open := <-changes:
			if !open { // the Manager closed
				return target{}, fmt.Errorf("%w: %s %q: the core is closing", ErrNotAvailable, k.name, name)
			}
		case <-limit.C:
			if err != nil {
				return target{}, err
			}
			return target{}, m.notLive(protocol.RegisterKind(k.name), name)
		case <-ctx.Done():
			return target{}, m.callError(k.name, name, ctx.Err(), ctx)
		}
		tg, err = m.lookup(k, name)
	}
}

// activatingBeside reports whether another owner is activating on o's incarnation.
func (m *Manager) activatingBeside(o *owner) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, other := range m.owners {
		if other != o && other.tier == o.tier && other.gen == o.gen && m.stateOf(other) == registry.Activating {
			return true
		}
	}
	return false
}

// probe pings o's incarnation; it returns nil once the host answers, and an error when the
// host ends first (or ctx ends). The owner's end (which a host's end causes) ends the ping.
func (m *Manager) probe(ctx context.Context, o *owner) error {
	pctx, stop := endsWith(ctx, o.ctx)
	defer stop()
	_, err := o.h.Call(pctx, protocol.MethodHostPing, protocol.Empty{}, rpc.CallOpts{})
	if err != nil && pctx.Err() != nil && ctx.Err() == nil {
		return errors.Join(err, context.Cause(pctx))
	}
	return err
}
