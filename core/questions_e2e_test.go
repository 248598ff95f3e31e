package core

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// scriptedAsker answers every question with answer and records what it was asked.
type scriptedAsker struct {
	mu     sync.Mutex
	answer Answer
	err    error
	asked  []Question
}

func (a *scriptedAsker) Ask(_ context.Context, q Question) (Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	return a.answer, a.err
}

// TestQuestionsToThePerson: DSH's userQuestions.ask reaches the Asker of the call, attributed,
// and the typed answer reaches the plugin; with no Asker the plugin gets NO_PROVIDER; a
// command asks through its own ticket; timed asks are refused by name; a question after the
// call ended is refused by the core.
func TestQuestionsToThePerson(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("questions")
		m := e.open(nil)
		reconcile(t, m)
		call := func(in string, asker Asker) map[string]any {
			t.Helper()
			o := CallOptions{}
			if asker != nil {
				o.Asker = asker
			}
			res, err := m.CallTool(context.Background(), "ask_person", input(in), o)
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(res.Structured, &v); err != nil {
				t.Fatalf("%s: %v", res.Structured, err)
			}
			return v
		}
		options := `{"question":{"question":"Which branch?","options":["main",{"label":"release","description":"the release branch"}],"allowText":true}}`
		for _, c := range []struct {
			name   string
			in     string
			answer Answer
			want   string // the answer or error the plugin saw, as JSON
		}{
			{"a choice", options, Answer{Kind: AnswerChoice, Choice: "release"}, `{"answer":{"choice":"release","kind":"choice"}}`},
			{"own text", options, Answer{Kind: AnswerText, Text: "the hotfix branch"}, `{"answer":{"kind":"text","text":"the hotfix branch"}}`},
			{"skipped", `{"question":"Anything else?"}`, Answer{Kind: AnswerSkipped}, `{"answer":{"kind":"skipped"}}`},
			{"a choice not offered", options, Answer{Kind: AnswerChoice, Choice: "dev"}, `"error":"FAILED"`},
		} {
			t.Run(c.name, func(t *testing.T) {
				a := &scriptedAsker{answer: c.answer}
				got, _ := json.Marshal(call(c.in, a))
				if !strings.Contains(string(got), strings.Trim(c.want, "{}")) {
					t.Fatalf("plugin saw %s, want %s", got, c.want)
				}
				if len(a.asked) != 1 || a.asked[0].PluginID != "fixture-questions" || a.asked[0].Kind != "tool" || a.asked[0].Name != "ask_person" {
					t.Fatalf("asked %+v", a.asked)
				}
			})
		}
		a := &scriptedAsker{answer: Answer{Kind: AnswerChoice, Choice: "main"}}
		call(options, a)
		if q := a.asked[0]; q.Text != "Which branch?" || len(q.Options) != 2 || q.Options[1] != (QuestionOption{Label: "release", Description: "the release branch"}) || !q.AllowText {
			t.Fatalf("question %+v", q)
		}
		if v := call(options, nil); v["error"] != "NO_PROVIDER" || !strings.Contains(v["message"].(string), "no person is present") {
			t.Fatalf("no asker: %v", v)
		}
		if v := call(options, &scriptedAsker{err: ErrNoProvider}); v["error"] != "NO_PROVIDER" {
			t.Fatalf("an asker without a person: %v", v)
		}
		if v := call(`{"question":{"question":"Now?","wait":true}}`, a); v["error"] != "REFUSED" || !strings.Contains(v["message"].(string), "`wait` is not provided by cwx") {
			t.Fatalf("wait: %v", v)
		}
		if v := call(`{"question":{"question":"Now?","timeoutMs":5000}}`, a); v["error"] != "REFUSED" || !strings.Contains(v["message"].(string), "`timeoutMs` is not provided") {
			t.Fatalf("timed: %v", v)
		}
		ca := &scriptedAsker{answer: Answer{Kind: AnswerChoice, Choice: "release"}}
		res, err := m.RunCommand(context.Background(), "ask", "", CallOptions{Asker: ca})
		if err != nil || res.Text != `{"answer":{"kind":"choice","choice":"release"}}` {
			t.Fatalf("command: %+v, %v", res, err)
		}
		if len(ca.asked) != 1 || ca.asked[0].Kind != "command" || ca.asked[0].Name != "ask" {
			t.Fatalf("command asked %+v", ca.asked)
		}
		late := &scriptedAsker{answer: Answer{Kind: AnswerSkipped}}
		if _, err := m.CallTool(context.Background(), "ask_later", input(`{}`), CallOptions{Asker: late}); err != nil {
			t.Fatal(err)
		}
		var later map[string]any
		eventually(t, 5*time.Second, "the late question settled", func() bool {
			res, err := m.CallTool(context.Background(), "later_result", input(`{}`), CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			later = nil
			_ = json.Unmarshal(res.Structured, &later)
			return later["pending"] == nil
		})
		if later["error"] != "REFUSED" || !strings.Contains(later["message"].(string), "only during a live invocation") || len(late.asked) != 0 {
			t.Fatalf("late question: %v; asked %v", later, late.asked)
		}
	})
}
