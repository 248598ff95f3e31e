package mcpserve

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/gate"
)

// The answers an approval elicitation offers: the terminal prompter's choices
// (ARCHITECTURE.md, “Approval”).
const (
	answerOnce    = "allow_once"
	answerSession = "allow_session"
	answerDeny    = "deny"
)

// errNoAnswer is a denial by an elicitation the user dismissed or declined.
var errNoAnswer = errors.New("the client's user declined the approval request")

// approver answers a call's approval card: by elicitation when the session's client
// declared it, else by Options.Fallback.
func (s *Server) approver(ss *mcp.ServerSession) core.Approver {
	if ss != nil && elicits(ss) {
		return elicitApprover{ss: ss}
	}
	if s.o.Fallback != nil {
		return s.o.Fallback
	}
	return gate.ApproverFunc(func(context.Context, core.ApprovalCard) (core.Decision, error) {
		return gate.DenyDecision, errors.New("approval needed and the client cannot be asked (no elicitation)")
	})
}

// elicits reports whether the session's client declared the elicitation capability.
func elicits(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// elicitApprover sends the approval card as a form elicitation.
type elicitApprover struct{ ss *mcp.ServerSession }

// Approve shows the card and maps the answer; decline and cancel deny.
func (a elicitApprover) Approve(ctx context.Context, card core.ApprovalCard) (core.Decision, error) {
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: cardMessage(card), RequestedSchema: decisionSchema(card.Forced)})
	if err != nil {
		return gate.DenyDecision, fmt.Errorf("ask the client for approval: %w", err)
	}
	if res.Action != "accept" {
		return gate.DenyDecision, fmt.Errorf("%w (%s)", errNoAnswer, res.Action)
	}
	switch res.Content["decision"] {
	case answerOnce:
		return gate.AllowOnce, nil
	case answerSession:
		if !card.Forced {
			return gate.AllowSession, nil
		}
		return gate.AllowOnce, nil
	}
	return gate.DenyDecision, nil
}

// cardMessage is the card as the elicitation's message; the card is the core's own text
// (nothing on it comes from the plugin's description of itself).
func cardMessage(card core.ApprovalCard) string {
	msg := core.StripEscapes(card.Text())
	if card.Forced {
		msg += "(this call is always asked)\n"
	}
	return msg
}

// decisionSchema is the elicitation's form: one required choice. A forced card offers no
// session grant, as the gate would not remember one.
func decisionSchema(forced bool) map[string]any {
	values := []any{answerOnce, answerSession, answerDeny}
	names := []any{"Allow once", "Allow this exact call for this session", "Deny"}
	if forced {
		values = []any{answerOnce, answerDeny}
		names = []any{"Allow once", "Deny"}
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"decision": map[string]any{
				"type": "string", "title": "Allow this extension tool call?",
				"enum": values, "enumNames": names, "default": answerDeny,
			},
		},
		"required": []any{"decision"},
	}
}
