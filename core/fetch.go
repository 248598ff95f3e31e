package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/core/fetchproxy"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/tickets"
)

// fetchInvocation ties a net/fetch that carries a ticket to its invocation, as user/ask
// does (questions.go): the ticket must be a live tool call's or command's, of this host and
// owner. It is looked up without spending a use (tickets.Table.Look): a plugin may poll a
// service far more often than it calls the core. The exchange's context then ends with the
// invocation, its deadline included (core/fetchproxy).
func (m *Manager) fetchInvocation(ctx context.Context, c fetchproxy.Caller, ticket string) (context.Context, func(), error) {
	row, err := m.cc.tickets().Look(ticket, tickets.Host{Key: c.Host, Generation: c.Generation}, c.Owner)
	if errors.Is(err, tickets.ErrViolation) {
		m.log.Warn("host presented too many invalid tickets; ending it", "tier", c.Host, "host_generation", c.Generation)
		return nil, nil, fmt.Errorf("%w: net/fetch: %w", rpc.ErrViolation, err)
	}
	if err != nil {
		return nil, nil, err
	}
	inv := m.cc.get(row.Target.CallID)
	if inv == nil {
		return nil, nil, tickets.ErrRefused
	}
	ictx, stop := owners.EndsWith(ctx, inv.ctx)
	return ictx, stop, nil
}
