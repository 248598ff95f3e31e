package cmdhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/config"
)

// RunGrace is how long past a hook's own timeout the core waits for the module's report
// (the module kills the tree at the timeout and answers at once) before it gives up on it.
const RunGrace = 5 * time.Second

// Runner runs one hook's command with stdin in the session's workspace and reports the run;
// it must return once ctx ends. The core's Runner sends harness/run to the hooks module.
type Runner interface {
	Run(ctx context.Context, h Hook, stdin []byte, s Session) (Result, error)
}

// Run runs hs at once (Claude Code runs the hooks an event matches in parallel), each under
// its own timeout plus RunGrace, and returns their decisions in hs's order.
func Run(ctx context.Context, r Runner, hs []Hook, stdin []byte, s Session) []Decision {
	out := make([]Decision, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, cancel := context.WithTimeoutCause(ctx, h.Timeout+RunGrace,
				fmt.Errorf("the hooks module did not report within %s of the hook's %ds timeout", RunGrace, h.TimeoutS))
			defer cancel()
			res, err := r.Run(hctx, h, stdin, s)
			if err == nil {
				out[i] = Decide(h, res)
				return
			}
			if c := context.Cause(hctx); c != nil {
				err = c
			}
			out[i] = notRun(h, err)
		}()
	}
	wg.Wait()
	return out
}

// PreToolUse runs the PreToolUse hooks that match tool and returns their decisions (none
// when no hook matches).
func (s *Set) PreToolUse(ctx context.Context, r Runner, sess Session, tool, toolUseID string, input json.RawMessage) []Decision {
	hs := s.Matching(config.EventPreToolUse, tool)
	if len(hs) == 0 {
		return nil
	}
	stdin, err := PreToolUseEvent(sess, tool, toolUseID, input)
	return runOrRefuse(ctx, r, hs, stdin, err, sess)
}

// AfterCall runs the hooks that follow a call of tool that returned o: PostToolUse for a
// success, PostToolUseFailure for a result that is an error ([OutcomeEvent]).
func (s *Set) AfterCall(ctx context.Context, r Runner, sess Session, tool, toolUseID string, input json.RawMessage, o Outcome) []Decision {
	ev := config.EventPostToolUse
	if o.IsError {
		ev = config.EventPostToolUseFailure
	}
	hs := s.Matching(ev, tool)
	if len(hs) == 0 {
		return nil
	}
	stdin, err := OutcomeEvent(sess, tool, toolUseID, input, o)
	return runOrRefuse(ctx, r, hs, stdin, err, sess)
}

// Fire runs the hooks of event whose matcher matches subject with the event stdin built
// already (or the error building it gave); `cwx hooks test` and the session events use it.
func (s *Set) Fire(ctx context.Context, r Runner, sess Session, event, subject string, stdin []byte, err error) []Decision {
	hs := s.Matching(event, subject)
	if len(hs) == 0 {
		return nil
	}
	return runOrRefuse(ctx, r, hs, stdin, err, sess)
}

// UserPromptSubmit runs every UserPromptSubmit hook with the prompt.
func (s *Set) UserPromptSubmit(ctx context.Context, r Runner, sess Session, prompt string) []Decision {
	hs := s.Matching(config.EventUserPromptSubmit, "")
	if len(hs) == 0 {
		return nil
	}
	stdin, err := UserPromptSubmitEvent(sess, prompt)
	return runOrRefuse(ctx, r, hs, stdin, err, sess)
}

func runOrRefuse(ctx context.Context, r Runner, hs []Hook, stdin []byte, err error, sess Session) []Decision {
	if err != nil {
		out := make([]Decision, len(hs))
		for i, h := range hs {
			out[i] = notRun(h, err)
		}
		return out
	}
	return Run(ctx, r, hs, stdin, sess)
}

// Prompt is the outcome of a prompt's UserPromptSubmit hooks.
type Prompt struct {
	// Blocked says a hook refused the prompt; Reason is the first refusal's, naming its hook.
	Blocked bool
	Reason  string
	// Context is what the hooks added, in order, within MaxContextTotal.
	Context []string
}

// FoldPrompt folds UserPromptSubmit decisions.
func FoldPrompt(ds []Decision) Prompt {
	var p Prompt
	for _, d := range ds {
		if d.Kind == Block && !p.Blocked {
			p.Blocked, p.Reason = true, fmt.Sprintf("%s (command hook %s, %s)", d.Reason, d.Hook.ID, d.Said)
		}
	}
	if !p.Blocked {
		p.Context = Contexts(ds)
	}
	return p
}

// SessionStart runs the SessionStart hooks that match source.
func (s *Set) SessionStart(ctx context.Context, r Runner, sess Session, source string) []Decision {
	stdin, err := SessionStartEvent(sess, source)
	return s.Fire(ctx, r, sess, config.EventSessionStart, source, stdin, err)
}

// SessionEnd runs the SessionEnd hooks that match reason.
func (s *Set) SessionEnd(ctx context.Context, r Runner, sess Session, reason string) []Decision {
	stdin, err := SessionEndEvent(sess, reason)
	return s.Fire(ctx, r, sess, config.EventSessionEnd, reason, stdin, err)
}

// Notification runs the Notification hooks that match typ with message.
func (s *Set) Notification(ctx context.Context, r Runner, sess Session, message, typ string) []Decision {
	stdin, err := NotificationEvent(sess, message, typ)
	return s.Fire(ctx, r, sess, config.EventNotification, typ, stdin, err)
}

// SessionOutcome is the outcome of a session event's hooks.
type SessionOutcome struct {
	// Context is what SessionStart hooks added for the model (plain stdout or
	// additionalContext), in order, within MaxContextTotal: the session's prompt section.
	Context []string `json:"context,omitempty"`
	// Shown is Context without what a hook asked to keep from the person (suppressOutput).
	Shown []string `json:"shown,omitempty"`
	// Messages are the hooks' systemMessages, for the person.
	Messages []string `json:"messages,omitempty"`
	// Stop says a hook answered `continue: false`: the session ends; StopReason names the
	// first such hook and says why, for the person.
	Stop       bool   `json:"stop,omitempty"`
	StopReason string `json:"stop_reason,omitempty"`
}

// FoldSession folds the decisions of a session event's hooks.
func FoldSession(ds []Decision) SessionOutcome {
	var o SessionOutcome
	var shown []Decision
	for _, d := range ds {
		if d.Stop && !o.Stop {
			o.Stop, o.StopReason = true, fmt.Sprintf("%s (command hook %s, %s)", d.StopReason, d.Hook.ID, d.Said)
		}
		if !d.Suppress {
			shown = append(shown, d)
		}
	}
	o.Context, o.Shown, o.Messages = Contexts(ds), Contexts(shown), Messages(ds)
	return o
}

// AfterCallOutcome is the outcome of the hooks that followed a call.
type AfterCallOutcome struct {
	// Context is what the hooks added for the model: additionalContext, and the reason of a
	// hook that blocked (as feedback; the call has run), within MaxContextTotal.
	Context []string
	// Shown is Context without what a hook that answered suppressOutput added: Claude Code
	// keeps such a hook's output out of what the person sees; the model still gets it.
	Shown []string
	// Messages are the hooks' systemMessages, for the person; suppressOutput keeps them.
	Messages []string
}

// FoldAfterCall folds the decisions of the hooks that followed a call.
func FoldAfterCall(ds []Decision) AfterCallOutcome {
	var shown []Decision
	for _, d := range ds {
		if !d.Suppress {
			shown = append(shown, d)
		}
	}
	return AfterCallOutcome{Context: Contexts(ds), Shown: Contexts(shown), Messages: Messages(ds)}
}

// SectionText is the text of a session's prompt section: the context its SessionStart
// hooks added, one hook's after another's; "" when they added none.
func (o SessionOutcome) SectionText() string { return strings.Join(o.Context, "\n\n") }
