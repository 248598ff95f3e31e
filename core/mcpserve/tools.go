package mcpserve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// describe prefixes a description with its origin: "[extension:<plugin>] …".
func describe(origin, desc string) string {
	if origin == "" {
		return desc
	}
	if desc == "" {
		return "[" + origin + "]"
	}
	return "[" + origin + "] " + desc
}

// syncTools brings the SDK's tools to the Manager's.
//
// +checklocks:s.syncMu
func (s *Server) syncTools() {
	live := map[string]bool{}
	for _, t := range s.m.Tools() {
		schema := t.InputSchema
		if !objectSchema(schema) {
			s.log.Warn("tool not served: its input schema is not an object schema", "tool", t.Name, "origin", t.Origin)
			continue
		}
		live[t.Name] = true
		desc := describe(t.Origin, t.Description)
		print := desc + "\x00" + string(schema) + "\x00" + strconv.FormatBool(t.ReadOnly)
		if s.tools[t.Name] == print {
			continue
		}
		s.tools[t.Name] = print
		s.mcp.AddTool(&mcp.Tool{Name: t.Name, Description: desc, InputSchema: json.RawMessage(schema), Annotations: annotations(t)}, s.callTool)
	}
	var gone []string
	for name := range s.tools {
		if !live[name] {
			gone = append(gone, name)
			delete(s.tools, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
}

// annotations are the hints the core knows: a read-only native says so; nothing is claimed
// for an extension tool (a plugin's word about itself is not the core's).
func annotations(t core.ToolInfo) *mcp.ToolAnnotations {
	if !t.ReadOnly {
		return nil
	}
	return &mcp.ToolAnnotations{ReadOnlyHint: true}
}

// objectSchema reports whether raw is a JSON object with "type": "object", which the SDK
// requires of every input schema (the registry admits no other).
func objectSchema(raw json.RawMessage) bool {
	var top struct {
		Type json.RawMessage `json:"type"`
	}
	return json.Unmarshal(raw, &top) == nil && bytes.Equal(bytes.TrimSpace(top.Type), []byte(`"object"`))
}

// callTool is every tool's handler: one Manager.CallTool under the request's context,
// which the SDK cancels on notifications/cancelled. A call whose plugin asks the person
// runs on across the client's retries, one question each (questions.go).
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	var r *run
	if st := req.Params.RequestState; isQuestionState(st) {
		if r = s.resume(st, req.Params.InputResponses[questionInput]); r == nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: errQuestionGone.Error()}}}, nil
		}
	} else {
		step := s.approver(req)
		r = s.start(ctx, func(ctx context.Context, r *run) (any, error) {
			opts := core.CallOptions{Workspace: s.o.Workspace, SessionID: req.Session.ID(), Approver: step}
			if tok := req.Params.GetProgressToken(); tok != nil && forwardsProgress(name) {
				opts.Progress = func(p, total float64, msg string) {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: p, Total: total, Message: core.StripEscapes(msg)})
				}
			}
			if canAsk(req.ClientCapabilities()) {
				opts.Asker = r
			}
			res, err := s.m.CallTool(ctx, name, req.Params.Arguments, opts)
			if step.card != nil && errors.Is(err, errAsk) {
				return step.ask(), nil
			}
			return res, err
		})
	}
	stop := func() {}
	if !forwardsProgress(name) {
		stop = s.progress(ctx, req)
	}
	ask, state, err := s.next(ctx, r)
	stop()
	switch {
	case err != nil:
		return nil, err
	case ask != nil:
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{questionInput: ask}, RequestState: state}, nil
	case r.err != nil:
		return s.callFailure(ctx, req.Session, name, r.err)
	}
	if res, ok := r.res.(*mcp.CallToolResult); ok {
		return res, nil
	}
	return toolResult(r.res.(core.ToolResult)), nil
}

// toolResult maps a tool's answer to MCP content.
func toolResult(res core.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(res.Content)), IsError: res.IsError}
	for _, c := range res.Content {
		out.Content = append(out.Content, mcpContent(c))
	}
	if len(res.Structured) > 0 {
		out.StructuredContent = res.Structured
	}
	// what the PostToolUse command hooks added reaches the client's model after the result,
	// marked as theirs (README, “Command hooks”)
	for _, c := range res.HookContext {
		out.Content = append(out.Content, &mcp.TextContent{Text: hookContextPrefix + c})
	}
	for _, m := range res.HookMessages {
		out.Content = append(out.Content, &mcp.TextContent{Text: hookMessagePrefix + m})
	}
	return out
}

// mcpContent is a result's block as the MCP content of the same type, its base64 data
// decoded (the core's content policy admitted it: package content).
func mcpContent(c core.ContentBlock) mcp.Content {
	bytesOf := func(s string) []byte {
		b, _ := base64.StdEncoding.DecodeString(s)
		return b
	}
	switch c.Type {
	case core.ContentImage:
		return &mcp.ImageContent{Data: bytesOf(c.Data), MIMEType: c.MimeType}
	case core.ContentAudio:
		return &mcp.AudioContent{Data: bytesOf(c.Data), MIMEType: c.MimeType}
	case core.ContentResourceLink:
		return &mcp.ResourceLink{URI: c.URI, Name: c.Name, MIMEType: c.MimeType}
	case core.ContentResource:
		r := &mcp.ResourceContents{URI: c.URI, MIMEType: c.MimeType, Text: c.Text}
		if c.Blob != "" {
			r.Blob = bytesOf(c.Blob)
		}
		return &mcp.EmbeddedResource{Resource: r}
	}
	return &mcp.TextContent{Text: c.Text}
}

// explainUnknown puts Options.Explain's answer in place of the "unknown tool" error of a
// tools/call, the SDK's (a name it does not list) and callFailure's (a name no longer live)
// alike: the protocol error stays, its message says why and what to do.
func (s *Server) explainUnknown(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || s.o.Explain == nil || call.Params == nil {
			return res, err
		}
		if je, ok := errors.AsType[*jsonrpc.Error](err); ok && je.Code == jsonrpc.CodeInvalidParams && je.Message == unknownTool(call.Params.Name) {
			return res, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: core.StripEscapes(s.o.Explain(call.Params.Name))}
		}
		return res, err
	}
}

// unknownTool is the SDK's message for a tool it does not list.
func unknownTool(name string) string { return fmt.Sprintf("unknown tool %q", name) }

// hookContextPrefix marks a PostToolUse hook's additional context in a tool's MCP content.
const hookContextPrefix = "PostToolUse hook context: "

// hookMessagePrefix marks a command hook's systemMessage, meant for the person.
const hookMessagePrefix = "hook message: "

// callFailure maps a refused or failed call. The client's own cancellation is returned as
// the context's error (the SDK answers nothing to a cancelled request); a tool that is not
// live is the SDK's unknown-tool error (explainUnknown words it); every other failure is an isError result carrying
// the core's message, which names the failure's kind.
//
// A call denied because a plugin holding a pre-execute hook is not live
// (*core.HooksDownError) names the plugin and its state every time; what to do about it is
// said once per session (the first such denial, and a warning notification), not per call.
func (s *Server) callFailure(ctx context.Context, ss *mcp.ServerSession, name string, err error) (*mcp.CallToolResult, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var notLive *core.NotLiveError
	if errors.As(err, &notLive) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: unknownTool(name)}
	}
	s.log.Debug("tool call failed", "tool", name, "error", err)
	msg := failureText(err)
	if down, ok := errors.AsType[*core.HooksDownError](err); ok {
		msg = s.hooksDownText(ss, down)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
}

// hooksDownText is the text of a call denied with down: in full the first time ss meets
// these plugins in these states (with a warning sent to the session), briefly afterwards.
func (s *Server) hooksDownText(ss *mcp.ServerSession, down *core.HooksDownError) string {
	key := down.Brief()[len(fmt.Sprintf("tool %q: ", down.Tool)):]
	s.toldMu.Lock()
	for told := range s.told { // forget the sessions that ended
		if !s.open(told) {
			delete(s.told, told)
		}
	}
	first := s.told[ss] != key
	s.told[ss] = key
	s.toldMu.Unlock()
	if !first {
		return "denied: " + core.StripEscapes(down.Brief()) + " (what to do was said earlier in this session)"
	}
	full := core.StripEscapes(down.Error())
	s.log.Warn("calls are denied: a plugin that holds a pre-execute hook is not live", "detail", full)
	if ss != nil {
		// not under the request's context: on the newer protocol versions it carries the
		// request's own log level, and a request without one gets no log at all
		lctx, cancel := context.WithTimeout(context.Background(), noticeWithin)
		//lint:ignore SA1019 notifications/message is how this server sends logs (logs.go)
		_ = ss.Log(lctx, &mcp.LoggingMessageParams{Logger: "cwx", Level: "warning", Data: full})
		cancel()
	}
	return "denied: " + full
}

// noticeWithin bounds the write of a session's notice.
const noticeWithin = 5 * time.Second

// open reports whether ss is one of the server's sessions.
func (s *Server) open(ss *mcp.ServerSession) bool {
	for o := range s.mcp.Sessions() {
		if o == ss {
			return true
		}
	}
	return false
}

// failureText is the message of an isError result: the failure's kind first, so a client
// (and a model) can tell a refused input from a plugin's failure.
func failureText(err error) string {
	kind := "internal error"
	switch {
	case errors.Is(err, core.ErrInvalidInput):
		kind = "invalid input"
	case errors.Is(err, core.ErrDenied):
		kind = "denied"
	case errors.Is(err, core.ErrHostExited):
		kind = "the extension host exited during the call"
	case errors.Is(err, core.ErrNotAvailable):
		kind = "not available"
	case errors.Is(err, core.ErrExecutionFailed):
		kind = "the plugin failed"
	case errors.Is(err, core.ErrTimeout):
		kind = "timed out"
	case errors.Is(err, core.ErrCancelled):
		kind = "cancelled"
	}
	return kind + ": " + core.StripEscapes(err.Error())
}

// forwardsProgress reports whether the tool reports its own progress: an MCP server's tool
// (core.MCPToolPrefix), whose notifications are passed through to the client instead of the
// ticks of progress.
func forwardsProgress(tool string) bool { return strings.HasPrefix(tool, core.MCPToolPrefix) }

// progress sends notifications/progress every ProgressEvery while the call runs, when the
// client gave a progress token. The returned stop ends it before the result is sent.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		tick := time.NewTicker(s.o.ProgressEvery)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			msg := fmt.Sprintf("tool %s running for %s", req.Params.Name, time.Since(start).Round(time.Second))
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n), Message: msg}); err != nil && ctx.Err() == nil {
				s.log.Debug("progress not sent", "tool", req.Params.Name, "error", err)
			}
		}
	}()
	return func() { cancel(); <-done }
}
