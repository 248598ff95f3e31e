package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/cmdhooks"
)

// sessionHooker is a core that runs the session command hooks (core.Manager); a core
// without them (a test's fake) runs none.
type sessionHooker interface {
	StartSession(ctx context.Context, o core.CallOptions) core.SessionHooks
	EndSession(ctx context.Context, reason string, o core.CallOptions) core.SessionHooks
	Notify(ctx context.Context, message, typ string, o core.CallOptions) core.SessionHooks
}

// hookerOf finds the sessionHooker under the wrappers the commands put around a core.
func hookerOf(m liveCore) (sessionHooker, bool) {
	for {
		switch c := m.(type) {
		case sessionHooker:
			return c, true
		case progressCore:
			m = c.liveCore
		case advertisingCore:
			m = c.liveCore
		default:
			return nil, false
		}
	}
}

// hookSession is one session's command hooks as a command runs them (README, “Command
// hooks”): SessionStart when it opens, SessionEnd when it closes, Notification beside each
// card or question that waits.
type hookSession struct {
	h    sessionHooker // nil: no session hooks
	opts core.CallOptions
	w    io.Writer // where the person reads what the hooks said
	// Start is what the SessionStart hooks said.
	Start core.SessionHooks

	// the Notification hooks run beside their card; end joins them
	wg     sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
}

// notifyJoin bounds how long the end of a session waits for the Notification hooks still
// running before it cancels them.
const notifyJoin = 2 * time.Second

// startHookSession runs the SessionStart hooks and shows the person what they said: their
// messages, and the session's prompt section unless every hook that added to it asked to
// suppress its output.
func startHookSession(ctx context.Context, m liveCore, opts core.CallOptions, w io.Writer) *hookSession {
	s := &hookSession{opts: opts, w: w}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	h, ok := hookerOf(m)
	if !ok {
		return s
	}
	s.h = h
	s.Start = h.StartSession(ctx, opts)
	printSessionHooks(w, s.Start)
	if len(s.Start.Shown) > 0 {
		printf(w, "session context (the session's prompt section, for the model):\n%s\n", indent(strings.Join(s.Start.Shown, "\n\n")))
	}
	return s
}

// Section is the session's prompt section, when its SessionStart hooks added context.
func (s *hookSession) Section() *core.PromptSection {
	if sec, ok := core.SessionSection(s.Start); ok {
		return &sec
	}
	return nil
}

// Stopped is the error of a session a SessionStart hook stopped (`continue: false`), nil
// when none did.
func (s *hookSession) Stopped() error {
	if !s.Start.Stop {
		return nil
	}
	return exitf(ExitDenied, "a SessionStart hook stopped the session: %s", s.Start.StopReason)
}

// end joins the Notification hooks (cancelled after notifyJoin) and runs the SessionEnd
// hooks with reason.
func (s *hookSession) end(ctx context.Context, reason string) {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	t := time.NewTimer(notifyJoin)
	select {
	case <-done:
	case <-t.C:
		s.cancel()
		<-done
	}
	t.Stop()
	s.cancel()
	if s.h == nil {
		return
	}
	printSessionHooks(s.w, s.h.EndSession(context.WithoutCancel(ctx), reason, s.opts))
}

// notify runs the Notification hooks of typ beside the card: it returns at once, and end
// joins the run.
func (s *hookSession) notify(message, typ string) {
	if s.h == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		printSessionHooks(s.w, s.h.Notify(s.ctx, message, typ, s.opts))
	}()
}

// Approver wraps next so that each card raises a permission_prompt notification.
func (s *hookSession) Approver(next core.Approver) core.Approver {
	if s.h == nil {
		return next
	}
	return core.ApproverFunc(func(ctx context.Context, card core.ApprovalCard) (core.Decision, error) {
		s.notify(fmt.Sprintf("cwx needs your permission to use %s", card.Tool), cmdhooks.NotifyPermission)
		return next.Approve(ctx, card)
	})
}

// Asker wraps next so that each question raises an elicitation_dialog notification.
func (s *hookSession) Asker(next core.Asker) core.Asker {
	if s.h == nil {
		return next
	}
	return notifyingAsker{s, next}
}

type notifyingAsker struct {
	s    *hookSession
	next core.Asker
}

func (a notifyingAsker) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	a.s.notify(fmt.Sprintf("plugin %s asks a question while %s %s runs", q.PluginID, q.Kind, q.Name), cmdhooks.NotifyElicitation)
	return a.next.Ask(ctx, q)
}

// printSessionHooks shows the hooks' systemMessages, lines kept.
func printSessionHooks(w io.Writer, h core.SessionHooks) {
	for _, m := range h.Messages {
		printf(w, "hook message: %s\n", strings.ReplaceAll(m, "\n", "\n  "))
	}
}
