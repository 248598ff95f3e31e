package mcpserve

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// multiRoundTripVersion is the first protocol version whose clients retry a request with
// the answers to its input requests themselves (the SDK's multi round-trip).
const multiRoundTripVersion = "2026-07-28"

// maxRounds bounds the input requests one request of an older client is answered through:
// the SDK's client allows as many retries.
const maxRounds = 10

// moreRounds answers, for a client on a protocol version before multiRoundTripVersion, every
// round of input requests a tools/call, prompts/get or resources/read needs. The SDK asks
// such a client the first round itself (elicitation/create) and retries the handler once;
// a call that needs a second round (its approval, then an MCP server's form or a plugin's
// question while it runs) would answer the client with the input-required result it cannot
// read. This middleware, outside the SDK's, asks the client each further round the same way
// and retries, so the client gets the call's result.
func (s *Server) moreRounds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if err != nil || !ok || !olderClient(ss) {
			return res, err
		}
		for round := 1; ; round++ {
			asks, state := pendingInput(res)
			if len(asks) == 0 {
				return res, nil
			}
			if round > maxRounds {
				return nil, fmt.Errorf("%s: more than %d rounds of questions to the client", method, maxRounds)
			}
			answers := mcp.InputResponseMap{}
			for id, ask := range asks {
				p, ok := ask.(*mcp.ElicitParams)
				if !ok {
					return nil, fmt.Errorf("%s: an input request of type %T", method, ask)
				}
				a, err := ss.Elicit(ctx, p)
				if err != nil {
					return nil, fmt.Errorf("%s: elicitation: %w", method, err)
				}
				answers[id] = a
			}
			retry, ok := withAnswers(req, answers, state)
			if !ok {
				return res, nil
			}
			req = retry
			if res, err = next(ctx, method, req); err != nil {
				return res, err
			}
		}
	}
}

// olderClient reports whether the session's client speaks a protocol version before
// multiRoundTripVersion (a session without initialize speaks a newer one).
func olderClient(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < multiRoundTripVersion
}

// pendingInput is the input requests of an input-required result and its request state.
func pendingInput(res mcp.Result) (mcp.InputRequestMap, string) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r.InputRequests, r.RequestState
	case *mcp.GetPromptResult:
		return r.InputRequests, r.RequestState
	case *mcp.ReadResourceResult:
		return r.InputRequests, r.RequestState
	}
	return nil, ""
}

// withAnswers is req retried with the client's answers and the request state, its params
// copied (never changed in place).
func withAnswers(req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, bool) {
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.CallToolRequest{Session: r.Session, Params: &p, Extra: r.Extra}, true
	case *mcp.GetPromptRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.GetPromptRequest{Session: r.Session, Params: &p, Extra: r.Extra}, true
	case *mcp.ReadResourceRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.ReadResourceRequest{Session: r.Session, Params: &p, Extra: r.Extra}, true
	}
	return nil, false
}
