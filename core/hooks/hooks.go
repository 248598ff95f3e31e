package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Bounds of a hook's answer and of a batch.
const (
	// BatchDeadline bounds one batch of plugin hooks, all asked at once.
	BatchDeadline = 5 * time.Second
	// MaxText bounds a deny or ask reason and an annotation, in bytes.
	MaxText = 2048
)

// Modes of a call, as hook/evaluate tells them.
const (
	ModeAgent    = "agent"     // a call through CallTool (the model, the person or an embedder)
	ModeCoreCall = "core_call" // a core/call from inside a plugin's tool
)

// Hook is one live hook: its plugin, its handle and the owner that registered it. A
// command hook's answers carry the hooks module's id and the hook's own id as Name.
type Hook struct {
	PluginID string
	Handle   uint64
	Owner    protocol.OwnerRef
	Name     string // a command hook's id ("PreToolUse[0]"); "" for a plugin's hook
}

// Call is what a hook is told of the call it evaluates.
type Call = protocol.HookCallPayload

// Evaluator asks one hook about one call. It must return once ctx ends.
type Evaluator interface {
	Evaluate(ctx context.Context, h Hook, c Call, deadline time.Duration) (protocol.HookVerdict, error)
}

// Answer is one hook's answer: its verdict, or the error asking it ended in.
type Answer struct {
	Hook    Hook
	Verdict protocol.HookVerdict
	Err     error
}

// Decision is the folded outcome's kind.
type Decision int

// Decisions, weakest first.
const (
	Proceed Decision = iota // no hook objects: the gate decides as usual
	Ask                     // a card is forced
	Deny                    // the call does not run
)

// Note is a line the card shows, attributed to the plugin whose hook gave it.
type Note struct {
	PluginID string
	Kind     protocol.HookVerdictKind // ask or annotate
	Text     string
}

// String renders the note as the card shows it.
func (n Note) String() string {
	if n.Kind == protocol.HookAsk {
		return fmt.Sprintf("hook of plugin `%s` asks: %s", n.PluginID, n.Text)
	}
	return fmt.Sprintf("hook of plugin `%s` notes: %s", n.PluginID, n.Text)
}

// Outcome is what the fold decided.
type Outcome struct {
	Decision Decision
	// Reason is why the call was denied, naming the hook's plugin (Deny only).
	Reason string
	// Input is the revised input, or nil when no hook revised it; RevisedBy names its plugin
	// and Reviser is the hook whose revise won.
	Input     json.RawMessage
	RevisedBy string
	Reviser   Hook
	// Notes are the asks and annotations in fold order, for the card.
	Notes []Note
}

// Run asks every hook at once under BatchDeadline (deadline, when positive, replaces it)
// and folds the answers after builtin's. A hook still unanswered at the deadline counts as
// a deny; Run returns when every hook answered or the deadline passed, whichever is first,
// and the contexts of the hooks still asking are cancelled.
func Run(ctx context.Context, builtin []Answer, hooks []Hook, c Call, ev Evaluator, deadline time.Duration) Outcome {
	if deadline <= 0 {
		deadline = BatchDeadline
	}
	return Fold(builtin, ask(ctx, hooks, c, ev, deadline))
}

// errDeadline is the cause of a hook unanswered at the batch deadline.
var errDeadline = errors.New("no answer within the batch deadline")

func ask(ctx context.Context, hooks []Hook, c Call, ev Evaluator, deadline time.Duration) []Answer {
	if len(hooks) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeoutCause(ctx, deadline, fmt.Errorf("%w of %s", errDeadline, deadline))
	defer cancel()
	out := make([]Answer, len(hooks))
	var mu sync.Mutex
	done := make([]bool, len(hooks))
	var wg sync.WaitGroup
	all := make(chan struct{})
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := ev.Evaluate(ctx, h, c, deadline)
			mu.Lock()
			defer mu.Unlock()
			if !done[i] {
				out[i], done[i] = Answer{Hook: h, Verdict: v, Err: err}, true
			}
		}()
	}
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-ctx.Done():
	}
	mu.Lock()
	for i, h := range hooks {
		if !done[i] {
			out[i], done[i] = Answer{Hook: h, Err: context.Cause(ctx)}, true
		}
	}
	mu.Unlock()
	cancel()
	<-all // the evaluators return once their context ends
	return out
}

// Fold folds builtin's answers, then plugin's, in the order given (ARCHITECTURE.md,
// “Pre-execute hooks”): deny > ask > abstain, the last revise wins, every ask and
// annotation is noted.
func Fold(builtin, plugin []Answer) Outcome {
	var out Outcome
	for i, a := range append(append([]Answer(nil), builtin...), plugin...) {
		v, why := check(a, i < len(builtin))
		if why != "" {
			if out.Decision != Deny {
				out.Decision, out.Reason = Deny, fmt.Sprintf("pre-execute hook of plugin `%s` failed: %s", a.Hook.PluginID, why)
			}
			continue
		}
		switch v.Kind {
		case protocol.HookDeny:
			if out.Decision != Deny {
				out.Decision, out.Reason = Deny, fmt.Sprintf("pre-execute hook of plugin `%s` denied the call: %s", a.Hook.PluginID, v.Reason)
			}
		case protocol.HookAsk:
			if out.Decision == Proceed {
				out.Decision = Ask
			}
			out.Notes = append(out.Notes, Note{PluginID: a.Hook.PluginID, Kind: protocol.HookAsk, Text: v.Reason})
		case protocol.HookAnnotate:
			out.Notes = append(out.Notes, Note{PluginID: a.Hook.PluginID, Kind: protocol.HookAnnotate, Text: v.Text})
		case protocol.HookRevise:
			out.Input, out.RevisedBy, out.Reviser = append(json.RawMessage(nil), v.Input...), a.Hook.PluginID, a.Hook
		}
	}
	return out
}

// check returns the answer's verdict, or why it counts as a deny. A builtin answer's text
// may hold several lines (a command hook's reason is kept as written); a plugin's must be
// one line.
func check(a Answer, builtin bool) (protocol.HookVerdict, string) {
	v := a.Verdict
	if a.Err != nil {
		return v, a.Err.Error()
	}
	text := ""
	switch v.Kind {
	case protocol.HookAbstain:
		return v, ""
	case protocol.HookDeny, protocol.HookAsk:
		text = v.Reason
	case protocol.HookAnnotate:
		text = v.Text
	case protocol.HookRevise:
		if in := bytes.TrimSpace(v.Input); len(in) == 0 || in[0] != '{' || !json.Valid(in) {
			return v, "revise needs the input as a JSON object"
		}
		return v, ""
	default:
		return v, fmt.Sprintf("unknown verdict %q", v.Kind)
	}
	switch {
	case strings.TrimSpace(text) == "":
		return v, fmt.Sprintf("%s needs a non-empty text", v.Kind)
	case !builtin && strings.ContainsRune(text, '\n'):
		return v, fmt.Sprintf("%s text must be one line", v.Kind)
	case len(text) > MaxText:
		return v, fmt.Sprintf("%s text is %d bytes; the limit is %d", v.Kind, len(text), MaxText)
	}
	if err := inert.Check(text); err != nil {
		return v, fmt.Sprintf("%s text %v", v.Kind, err)
	}
	return v, ""
}
