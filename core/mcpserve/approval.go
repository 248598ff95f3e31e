package mcpserve

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// The answers an approval elicitation offers: the terminal prompter's choices
// (ARCHITECTURE.md, “Approval”).
const (
	answerOnce    = "allow_once"
	answerSession = "allow_session"
	answerTool    = "allow_tool" // this tool of this plugin build, any input, for the session
	answerDeny    = "deny"
)

// approvalInput names the approval elicitation among a result's input requests.
const approvalInput = "approval"

var (
	// errNoAnswer is a denial by an elicitation the user dismissed or declined.
	errNoAnswer = errors.New("the client's user declined the approval request")
	// errAsk stops a call whose approval is to be asked: the answer comes with the
	// client's retry of the call (multi round-trip).
	errAsk = errors.New("approval is being asked of the client")
)

// approvalStep answers the approval card of one tools/call by elicitation, in the SDK's
// multi round-trip form: the first pass records the card and stops the call (errAsk);
// the handler answers with the card as an input request and, as the request state, a
// MAC of the card's approval key; the retry carries the client's answer and that state,
// and the answer counts only for a card with the same key (the same plugin build, tool
// and canonical input). The SDK elicits directly, and retries itself, for a client on an
// older protocol version. A client without elicitation gets Options.Fallback's answer.
type approvalStep struct {
	s    *Server
	req  *mcp.CallToolRequest
	card *core.ApprovalCard // the card the gate asked about, on a first pass
}

// approver returns what answers a call's approval card. Whether the client declared
// elicitation is looked up only when the gate asks (reading the request's capabilities
// costs a decode): without it, Options.Fallback answers.
func (s *Server) approver(req *mcp.CallToolRequest) *approvalStep {
	return &approvalStep{s: s, req: req}
}

// Approve answers from the retry's input response, or records the card and stops; for a
// client without elicitation it asks the fallback.
func (a *approvalStep) Approve(ctx context.Context, card core.ApprovalCard) (core.Decision, error) {
	if caps := a.req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
		if a.s.o.Fallback != nil {
			return a.s.o.Fallback.Approve(ctx, card)
		}
		return core.DenyDecision, errors.New("approval needed and the client cannot be asked (no elicitation)")
	}
	p := a.req.Params
	if resp, ok := p.InputResponses[approvalInput]; ok && a.s.stateValid(p.RequestState, card.Key) {
		return decision(resp, card)
	}
	a.card = &card
	return core.DenyDecision, errAsk
}

// ask is the input-required result of a first pass.
func (a *approvalStep) ask() *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: &mcp.ElicitParams{
			Mode: "form", Message: cardMessage(*a.card), RequestedSchema: decisionSchema(*a.card),
		}},
		RequestState: a.s.state(a.card.Key),
	}
}

// decision maps the client's answer; decline and cancel deny. A session answer to a card
// that does not offer it (a forced one) allows once, as the gate would.
func decision(resp mcp.InputResponse, card core.ApprovalCard) (core.Decision, error) {
	res, ok := resp.(*mcp.ElicitResult)
	if !ok {
		return core.DenyDecision, fmt.Errorf("the client answered the approval request with %T", resp)
	}
	if res.Action != "accept" {
		return core.DenyDecision, fmt.Errorf("%w (%s)", errNoAnswer, res.Action)
	}
	switch res.Content["decision"] {
	case answerOnce:
		return core.AllowOnce, nil
	case answerSession:
		if !card.Forced {
			return core.AllowSession, nil
		}
		return core.AllowOnce, nil
	case answerTool:
		if !card.Forced && card.ToolKey != "" {
			return core.AllowToolForSession, nil
		}
		return core.AllowOnce, nil
	}
	return core.DenyDecision, nil
}

// state is the request state bound to an approval key: its MAC under the server's secret.
func (s *Server) state(key string) string {
	mac := hmac.New(sha256.New, s.secret[:])
	mac.Write([]byte(key))
	return hex.EncodeToString(mac.Sum(nil))
}

func (s *Server) stateValid(state, key string) bool {
	return hmac.Equal([]byte(state), []byte(s.state(key)))
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

// decisionSchema is the elicitation's form: one required choice among the terminal
// prompter's (gate.TerminalPrompter). A forced card offers no session grant, as the gate
// would not remember one.
func decisionSchema(card core.ApprovalCard) map[string]any {
	values := []any{answerOnce}
	names := []any{"Allow once"}
	if !card.Forced {
		values = append(values, answerSession)
		names = append(names, "Allow this exact call (the same input) for the session")
		if card.ToolKey != "" && card.ToolChoice != "" {
			values = append(values, answerTool)
			names = append(names, "A"+core.StripEscapes(card.ToolChoice)[1:])
		}
	}
	values = append(values, answerDeny)
	names = append(names, "Deny")
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"decision": map[string]any{
				"type": "string", "title": "Allow this tool call?",
				"enum": values, "enumNames": names, "default": answerDeny,
			},
		},
		"required": []any{"decision"},
	}
}
