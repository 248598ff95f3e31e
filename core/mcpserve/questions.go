package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
)

// questionInput names a plugin's question among a result's input requests.
const questionInput = "question"

// DefaultAnswerWithin is how long a call waiting on a question stays parked for the
// client's retry with the answer before it is cancelled.
const DefaultAnswerWithin = 10 * time.Minute

// errQuestionGone answers a retry whose question is not parked (answered, expired, or
// asked of another server).
var errQuestionGone = errors.New("the question this retry answers is no longer waiting; make the call again")

// A question is asked while the plugin's call is in flight, so unlike approval the call
// cannot be stopped and made again: it runs on in a goroutine of the server (a run), and
// the handler answers with the question as an input request and, as the request state, the
// run's parked id with its MAC. The client's retry carries the answer; the handler hands it
// to the run and waits for the run's next question or its end (ARCHITECTURE.md, “Questions
// to the person”). A run nobody answers within Options.AnswerWithin is cancelled.
type run struct {
	cancel context.CancelFunc
	asks   chan asked // the asker's questions, one at a time
	done   chan struct{}
	res    any // the call's result once done is closed
	err    error
	q      asked       // the elicitation the run is parked on
	timer  *time.Timer // cancels the parked run nobody answers
}

// asked is one elicitation waiting for the client's answer: a plugin's question, or an MCP
// server's whole form.
type asked struct {
	params *mcp.ElicitParams
	reply  chan mcp.InputResponse
}

// Ask puts q to the handler serving the run and waits for the client's answer.
func (r *run) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	resp, err := r.elicit(ctx, questionParams(q))
	if err != nil {
		return core.Answer{}, err
	}
	return toAnswer(q, resp), nil
}

// AskForm puts an MCP server's form to the client as one form elicitation, the requested
// schema passed through as the server wrote it (core/elicit's FormAsker, which checks the
// answer against it before it goes back to the server).
func (r *run) AskForm(ctx context.Context, q core.Question, schema json.RawMessage) (string, map[string]any, error) {
	resp, err := r.elicit(ctx, formParams(q, schema))
	if err != nil {
		return "", nil, err
	}
	res, ok := resp.(*mcp.ElicitResult)
	if !ok {
		return "cancel", nil, nil
	}
	return res.Action, res.Content, nil
}

// elicit hands p to the handler serving the run and waits for the client's answer.
func (r *run) elicit(ctx context.Context, p *mcp.ElicitParams) (mcp.InputResponse, error) {
	a := asked{params: p, reply: make(chan mcp.InputResponse, 1)}
	select {
	case r.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case resp := <-a.reply:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// canAsk reports whether the client declared elicitation: without it no person can be
// asked, the call gets no Asker and the plugin NO_PROVIDER.
func canAsk(caps *mcp.ClientCapabilities) bool {
	return caps != nil && caps.Elicitation != nil
}

// start runs call in a goroutine detached from the request (the run outlives the first
// pass); its context ends with the run's cancel or the server's.
func (s *Server) start(ctx context.Context, call func(ctx context.Context, r *run) (any, error)) *run {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &run{cancel: cancel, asks: make(chan asked), done: make(chan struct{})}
	s.runs.Go(func() {
		defer close(r.done)
		defer cancel()
		r.res, r.err = call(ctx, r)
	})
	return r
}

// resume finds the run a retry answers and hands it the client's answer; nil when the
// request state names no parked run.
func (s *Server) resume(state string, resp mcp.InputResponse) *run {
	r := s.take(state)
	if r == nil {
		return nil
	}
	r.q.reply <- resp
	return r
}

// next waits for the run's next question (parked, and its input request returned) or its
// end. The request's own cancellation cancels the run.
func (s *Server) next(ctx context.Context, r *run) (ask *mcp.ElicitParams, state string, err error) {
	select {
	case a := <-r.asks:
		r.q = a
		return a.params, s.park(r), nil
	case <-r.done:
		return nil, "", nil
	case <-ctx.Done():
		r.cancel()
		<-r.done
		return nil, "", ctx.Err()
	}
}

// park records r under a fresh id until its retry or Options.AnswerWithin, and returns the
// request state: the id and its MAC.
func (s *Server) park(r *run) string {
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	id := hex.EncodeToString(raw[:])
	state := id + "." + s.state("question:"+id)
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	s.parked[id] = r
	r.timer = time.AfterFunc(s.o.AnswerWithin, func() {
		if r := s.take(state); r != nil {
			r.cancel()
		}
	})
	return state
}

// take removes and returns the run a request state names, if its MAC holds.
func (s *Server) take(state string) *run {
	id, mac, ok := strings.Cut(state, ".")
	if !ok || !s.stateValid(mac, "question:"+id) {
		return nil
	}
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	r := s.parked[id]
	delete(s.parked, id)
	if r != nil {
		r.timer.Stop()
	}
	return r
}

// stopRuns cancels every parked run and waits for all runs to end.
func (s *Server) stopRuns() {
	s.parkMu.Lock()
	for id, r := range s.parked {
		r.timer.Stop()
		r.cancel()
		delete(s.parked, id)
	}
	s.parkMu.Unlock()
	s.runs.Wait()
}

// isQuestionState tells a question's request state from an approval's (a bare MAC).
func isQuestionState(state string) bool { return strings.Contains(state, ".") }

// questionParams is the question as a form elicitation: a choice is an enum field, the
// person's own text a string field; either may be left empty to skip.
func questionParams(q core.Question) *mcp.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "Plugin `%s` asks (while its %s `%s` runs):\n%s\n", q.PluginID, q.Kind, q.Name, q.Text)
	props := map[string]any{}
	if len(q.Options) > 0 {
		labels := make([]any, 0, len(q.Options))
		for i, o := range q.Options {
			labels = append(labels, o.Label)
			if o.Description != "" {
				fmt.Fprintf(&b, "  [%d] %s: %s\n", i+1, o.Label, o.Description)
			} else {
				fmt.Fprintf(&b, "  [%d] %s\n", i+1, o.Label)
			}
		}
		props["choice"] = map[string]any{"type": "string", "title": "Your choice", "enum": labels}
	}
	if q.AllowText {
		props["text"] = map[string]any{"type": "string", "title": "Your answer", "maxLength": core.MaxAnswerText}
	}
	return &mcp.ElicitParams{Mode: "form", Message: core.StripEscapes(b.String()),
		RequestedSchema: map[string]any{"type": "object", "properties": props}}
}

// formParams is an MCP server's form as one form elicitation: the server's message under a
// line that says who asks, and its requested schema as the server wrote it (its fields in
// the server's order).
func formParams(q core.Question, schema json.RawMessage) *mcp.ElicitParams {
	who := fmt.Sprintf("Plugin `%s`", q.PluginID)
	if server, ok := strings.CutPrefix(q.PluginID, core.OriginMCP); ok {
		who = fmt.Sprintf("MCP server `%s`", server)
	}
	msg := fmt.Sprintf("%s asks (while its %s `%s` runs):\n%s", who, q.Kind, q.Name, q.Text)
	return &mcp.ElicitParams{Mode: "form", Message: core.StripEscapes(msg), RequestedSchema: schema}
}

// toAnswer maps the client's answer: a choice, else the text, else (empty, declined or
// cancelled) skipped. The core checks the choice against the options.
func toAnswer(q core.Question, resp mcp.InputResponse) core.Answer {
	res, ok := resp.(*mcp.ElicitResult)
	if !ok || res.Action != "accept" {
		return core.Answer{Kind: core.AnswerSkipped}
	}
	if c, _ := res.Content["choice"].(string); c != "" {
		return core.Answer{Kind: core.AnswerChoice, Choice: c}
	}
	if t, _ := res.Content["text"].(string); t != "" && q.AllowText {
		return core.Answer{Kind: core.AnswerText, Text: t}
	}
	return core.Answer{Kind: core.AnswerSkipped}
}
