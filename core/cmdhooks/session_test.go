package cmdhooks

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/config"
)

var (
	start  = Hook{ID: "SessionStart[0]", Event: "SessionStart", Command: "./start.sh", TimeoutS: 60, Timeout: time.Minute}
	end    = Hook{ID: "SessionEnd[0]", Event: "SessionEnd", Command: "./end.sh", TimeoutS: 60, Timeout: time.Minute}
	notify = Hook{ID: "Notification[0]", Event: "Notification", Command: "./notify.sh", TimeoutS: 60, Timeout: time.Minute}
)

// TestDecideSessionEvents: SessionStart's plain stdout and additionalContext are context;
// exit 2 and decision block cannot block a session or notification event (logged, as in
// Claude Code); continue false with stopReason stops, its reason's lines kept;
// suppressOutput is noted; a PreToolUse continue false is a block with the stopReason.
func TestDecideSessionEvents(t *testing.T) {
	for _, c := range []struct {
		name       string
		hook       Hook
		res        Result
		kind       Kind
		context    string
		stop       bool
		stopReason string
		suppress   bool
		failed     string
	}{
		{name: "start stdout is context", hook: start, res: Result{Stdout: "branch main\n3 open issues\n"}, context: "branch main\n3 open issues"},
		{name: "start additionalContext", hook: start, res: Result{Stdout: `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"use pnpm"}}`}, context: "use pnpm"},
		{name: "start exit 2 does not block", hook: start, res: Result{ExitCode: 2, Stderr: "no"}, failed: "SessionStart hooks cannot block"},
		{name: "end decision block ignored", hook: end, res: Result{Stdout: `{"decision":"block","reason":"x"}`}},
		{name: "notification exit 2", hook: notify, res: Result{ExitCode: 2}, failed: "cannot block"},
		{name: "start continue false", hook: start, res: Result{Stdout: `{"continue":false,"stopReason":"Outside work hours.\nCome back at 9."}`},
			stop: true, stopReason: "Outside work hours.\nCome back at 9."},
		{name: "start suppressOutput", hook: start, res: Result{Stdout: `{"suppressOutput":true,"hookSpecificOutput":{"additionalContext":"secret plan"}}`}, context: "secret plan", suppress: true},
		{name: "pre continue false blocks", hook: pre, res: Result{Stdout: `{"continue":false,"stopReason":"frozen"}`}, kind: Block, stop: true, stopReason: "frozen"},
		{name: "post continue false", hook: post, res: Result{Stdout: `{"continue":false}`}, kind: Block, stop: true, stopReason: "the hook asked to stop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.hook, c.res)
			if d.Kind != c.kind || d.Context != c.context || d.Stop != c.stop || d.StopReason != c.stopReason || d.Suppress != c.suppress ||
				(c.failed == "") != (d.Failed == "") || !strings.Contains(d.Failed, c.failed) {
				t.Fatalf("got %+v", d)
			}
			if c.kind == Block && d.Reason != c.stopReason {
				t.Fatalf("reason %q, want the stopReason %q", d.Reason, c.stopReason)
			}
		})
	}
}

// TestSessionEvents: the stdin of each session event in Claude Code's fields.
func TestSessionEvents(t *testing.T) {
	s := Session{ID: "s1", Cwd: "/w", TranscriptPath: "/h/t/s1.jsonl"}
	for _, c := range []struct {
		got  func() ([]byte, error)
		want string
	}{
		{func() ([]byte, error) { return SessionStartEvent(s, SourceStartup) }, `"hook_event_name":"SessionStart","source":"startup"}`},
		{func() ([]byte, error) { return SessionEndEvent(s, ReasonPromptInputExit) }, `"hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`},
		{func() ([]byte, error) {
			return NotificationEvent(s, "cwx needs your approval to use shell", NotifyPermission)
		},
			`"hook_event_name":"Notification","message":"cwx needs your approval to use shell","notification_type":"permission_prompt"}`},
	} {
		b, err := c.got()
		if err != nil || !strings.HasPrefix(string(b), `{"session_id":"s1","transcript_path":"/h/t/s1.jsonl","cwd":"/w","permission_mode":"default",`) || !strings.HasSuffix(string(b), c.want+"\n") {
			t.Errorf("%s %v\nwant …%s", b, err, c.want)
		}
	}
}

// TestFoldSession: the context of every hook makes the section, what suppressOutput hides is
// kept from Shown, and the first continue false stops naming its hook. Matchers match the
// source and the notification_type.
func TestFoldSession(t *testing.T) {
	set, err := Load(config.Hooks{Entries: []config.HookEntry{
		{Event: "SessionStart", Matcher: "startup", Command: "ctx", TimeoutS: 60},
		{Event: "SessionStart", Matcher: "resume", Command: "never", TimeoutS: 60},
		{Event: "SessionStart", Command: "hidden", TimeoutS: 60},
		{Event: "SessionStart", Command: "stop", TimeoutS: 60},
		{Event: "Notification", Matcher: "permission_prompt", Command: "ctx", TimeoutS: 60},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := fakeRunner{"ctx": {Stdout: "branch main"}, "never": {Stdout: "wrong source"},
		"hidden": {Stdout: `{"suppressOutput":true,"hookSpecificOutput":{"additionalContext":"token budget 4"}}`},
		"stop":   {Stdout: `{"continue":false,"stopReason":"frozen","systemMessage":"bye"}`}}
	o := FoldSession(set.SessionStart(context.Background(), r, Session{ID: "s"}, SourceStartup))
	want := SessionOutcome{Context: []string{"branch main", "token budget 4"}, Shown: []string{"branch main"},
		Messages: []string{"SessionStart hook SessionStart[3]: bye"}, Stop: true, StopReason: "frozen (command hook SessionStart[3], exit 0, systemMessage, continue false)"}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("%+v\nwant %+v", o, want)
	}
	if o.SectionText() != "branch main\n\ntoken budget 4" {
		t.Fatalf("section %q", o.SectionText())
	}
	if ds := set.Notification(context.Background(), r, Session{ID: "s"}, "m", NotifyElicitation); len(ds) != 0 {
		t.Fatalf("elicitation matched permission_prompt: %+v", ds)
	}
	if ds := set.Notification(context.Background(), r, Session{ID: "s"}, "m", NotifyPermission); len(ds) != 1 {
		t.Fatalf("permission_prompt: %+v", ds)
	}
}

// TestFoldAfterCall: a PostToolUse hook that answers suppressOutput keeps its context (and
// its block's feedback) from the person, never from the model; its systemMessage is kept.
func TestFoldAfterCall(t *testing.T) {
	set, err := Load(config.Hooks{Entries: []config.HookEntry{
		{Event: "PostToolUse", Matcher: "Bash", Command: "lint", TimeoutS: 60},
		{Event: "PostToolUse", Matcher: "Bash", Command: "quiet", TimeoutS: 60},
		{Event: "PostToolUse", Matcher: "Bash", Command: "quiet-block", TimeoutS: 60},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := fakeRunner{"lint": {Stdout: `{"hookSpecificOutput":{"additionalContext":"2 warnings"}}`},
		"quiet":       {Stdout: `{"suppressOutput":true,"systemMessage":"formatted","hookSpecificOutput":{"additionalContext":"formatted a.go"}}`},
		"quiet-block": {Stdout: `{"suppressOutput":true,"decision":"block","reason":"tests fail"}`}}
	ds := set.AfterCall(context.Background(), r, Session{ID: "s"}, "shell", "c1", json.RawMessage(`{"command":"go fmt"}`), Outcome{})
	want := AfterCallOutcome{Context: []string{"2 warnings", "formatted a.go", "PostToolUse hook PostToolUse[2] blocked: tests fail"},
		Shown: []string{"2 warnings"}, Messages: []string{"PostToolUse hook PostToolUse[1]: formatted"}}
	if o := FoldAfterCall(ds); !reflect.DeepEqual(o, want) {
		t.Fatalf("%+v\nwant %+v", o, want)
	}
}
