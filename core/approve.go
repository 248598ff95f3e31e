package core

import (
	"context"
	"errors"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/protocol"
)

// coreCallError is a core/call answered with an error code, and its receipt.
func coreCallError(code int, decision, status, msg string) (*protocol.RPCError, CoreCallReceipt) {
	return &protocol.RPCError{Code: code, Message: msg}, CoreCallReceipt{Decision: decision, Status: status}
}

// approveRequest is approveCoreCall of a request the pre-execute hooks may have changed
// (Forced by an ask, their notes on the card).
func (m *Manager) approveRequest(ctx context.Context, inv *invocation, req gate.Request) (string, error) {
	if req.Requirement == gate.Eligible {
		if _, err := m.gate.Check(ctx, req, nil); err != nil {
			return "refused", err
		}
		return "auto", nil
	}
	resume := inv.deadline.pause()
	defer resume()
	if err := acquire(ctx, inv.card); err != nil {
		return "cancelled", err
	}
	defer func() { <-inv.card }()
	src, err := m.gate.Check(ctx, req, inv.approver)
	switch {
	case err == nil:
		return string(src), nil
	case ctx.Err() != nil && !errors.Is(err, ErrDenied):
		return "cancelled", err
	}
	return "denied", err
}

// coreCallRPCError answers a gate failure: denied (-32003) or cancelled (-32800).
func coreCallRPCError(ctx context.Context, err error) *protocol.RPCError {
	if ctx.Err() != nil && !errors.Is(err, ErrDenied) {
		return &protocol.RPCError{Code: protocol.CodeCancelled, Message: "core/call cancelled; its approval card was withdrawn"}
	}
	return &protocol.RPCError{Code: protocol.CodeDenied, Message: "core/call denied: " + err.Error()}
}
