package mcpserve

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// promptArgument is the one argument of every command prompt: the text after the
// command's name.
const promptArgument = "input"

// syncPrompts brings the SDK's prompts to the Manager's commands.
//
// +checklocks:s.syncMu
func (s *Server) syncPrompts() {
	live := map[string]bool{}
	for _, c := range s.m.Commands() {
		live[c.Name] = true
		desc := describe(c.Origin, c.Description)
		print := desc + "\x00" + c.ArgumentHint
		if s.prompts[c.Name] == print {
			continue
		}
		s.prompts[c.Name] = print
		arg := &mcp.PromptArgument{Name: promptArgument, Description: c.ArgumentHint}
		s.mcp.AddPrompt(&mcp.Prompt{Name: c.Name, Description: desc, Arguments: []*mcp.PromptArgument{arg}}, s.getPrompt)
	}
	var gone []string
	for name := range s.prompts {
		if !live[name] {
			gone = append(gone, name)
			delete(s.prompts, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemovePrompts(gone...)
	}
}

// getPrompt runs the command: a submit answer is the prompt's user message (its text, if
// any, the description); success and error answers are text. A command whose plugin asks
// the person runs on across the client's retries, as a tool call does (questions.go).
func (s *Server) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := req.Params.Name
	var r *run
	if st := req.Params.RequestState; isQuestionState(st) {
		if r = s.resume(st, req.Params.InputResponses[questionInput]); r == nil {
			return nil, fmt.Errorf("command %s: %w", name, errQuestionGone)
		}
	} else {
		r = s.start(ctx, func(ctx context.Context, r *run) (any, error) {
			opts := core.CallOptions{Workspace: s.o.Workspace, SessionID: req.Session.ID()}
			if canAsk(req.ClientCapabilities()) {
				opts.Asker = r
			}
			return s.m.RunCommand(ctx, name, req.Params.Arguments[promptArgument], opts)
		})
	}
	ask, state, err := s.next(ctx, r)
	switch {
	case err != nil:
		return nil, err
	case ask != nil:
		return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{questionInput: ask}, RequestState: state}, nil
	case r.err != nil:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("command %s: %s", name, failureText(r.err))
	}
	return promptResult(r.res.(core.CommandResult)), nil
}

// promptResult maps a command's answer to a prompt.
func promptResult(res core.CommandResult) *mcp.GetPromptResult {
	switch res.Kind {
	case "submit":
		return &mcp.GetPromptResult{Description: res.Text, Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: res.Prompt}},
		}}
	case "error":
		return &mcp.GetPromptResult{Description: "the command reported an error", Messages: []*mcp.PromptMessage{
			{Role: "assistant", Content: &mcp.TextContent{Text: res.Text}},
		}}
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "assistant", Content: &mcp.TextContent{Text: res.Text}}}}
}
