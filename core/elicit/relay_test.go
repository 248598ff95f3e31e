package elicit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/questions"
)

// formAsker is a FormAsker whose answers the test gives, one per form asked; Ask fails the
// test (a FormAsker is never asked field by field).
type formAsker struct {
	t       *testing.T
	answers []formAnswer
	asked   []questions.Question
	schemas []string
}

type formAnswer struct {
	action  string
	content map[string]any
	err     error
}

func (f *formAsker) Ask(context.Context, questions.Question) (questions.Answer, error) {
	f.t.Error("a FormAsker was asked field by field")
	return questions.Answer{}, errors.New("no")
}

func (f *formAsker) AskForm(_ context.Context, q questions.Question, schema json.RawMessage) (string, map[string]any, error) {
	f.asked = append(f.asked, q)
	f.schemas = append(f.schemas, string(schema))
	if len(f.answers) == 0 {
		return "cancel", nil, nil
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a.action, a.content, a.err
}

// relayedSchema is a form whose fields are not in sorted order.
const relayedSchema = `{"type":"object","properties":{"zeta":{"type":"string","title":"Zeta"},"alpha":{"type":"integer","minimum":1,"maximum":9}},"required":["zeta"]}`

// TestFormRelayedWhole: an asker that is a FormAsker gets the whole form at once, attributed
// to the server and its tool, the requested schema as the server wrote it; an answer outside
// the schema (or naming a field the form does not have) is asked again with the reason, at
// most three times, then declined; decline, cancel and a failing asker pass through as
// decline and cancel; a schema holding a control character is declined without asking.
func TestFormRelayedWhole(t *testing.T) {
	cases := []struct {
		name    string
		schema  string
		answers []formAnswer
		want    mcpclient.Elicited
		asks    int
		retry   []string // what the 2nd, 3rd … ask's text starts with
		warn    string
	}{
		{name: "accepted", schema: relayedSchema, answers: []formAnswer{{action: "accept", content: map[string]any{"zeta": "z", "alpha": float64(3)}}},
			want: mcpclient.Elicited{Action: "accept", Content: map[string]any{"zeta": "z", "alpha": float64(3)}}, asks: 1},
		{name: "asked again", schema: relayedSchema, answers: []formAnswer{
			{action: "accept", content: map[string]any{"alpha": float64(3)}},
			{action: "accept", content: map[string]any{"zeta": "z", "other": true}},
			{action: "accept", content: map[string]any{"zeta": "z"}}},
			want: mcpclient.Elicited{Action: "accept", Content: map[string]any{"zeta": "z"}}, asks: 3,
			retry: []string{"Not accepted: ", `Not accepted: "other" is not a field of the form`}},
		{name: "never valid", schema: relayedSchema, answers: []formAnswer{
			{action: "accept", content: map[string]any{"zeta": "z", "alpha": float64(10)}},
			{action: "accept", content: map[string]any{"zeta": "z", "alpha": 1.5}},
			{action: "accept", content: map[string]any{"zeta": 5}}},
			want: mcpclient.Elicited{Action: "decline"}, asks: 3, retry: []string{"Not accepted: ", "Not accepted: "},
			warn: "3 answers to the form were not accepted"},
		{name: "declined", schema: relayedSchema, answers: []formAnswer{{action: "decline"}}, want: mcpclient.Elicited{Action: "decline"}, asks: 1},
		{name: "cancelled", schema: relayedSchema, answers: []formAnswer{{action: "cancel"}}, want: mcpclient.Elicited{Action: "cancel"}, asks: 1},
		{name: "asker fails", schema: relayedSchema, answers: []formAnswer{{err: context.Canceled}}, want: mcpclient.Elicited{Action: "cancel"}, asks: 1},
		{name: "empty form", schema: `{"type":"object"}`, answers: []formAnswer{{action: "accept"}},
			want: mcpclient.Elicited{Action: "accept", Content: map[string]any{}}, asks: 1},
		{name: "control character", schema: `{"type":"object","properties":{"a":{"type":"string","description":"x\u001b[2Jy"}}}`,
			want: mcpclient.Elicited{Action: "decline"}, asks: 0, warn: "control or bidi character"},
		{name: "nested", schema: `{"type":"object","properties":{"a":{"type":"object"}}}`,
			want: mcpclient.Elicited{Action: "decline"}, asks: 0, warn: "nested object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn})
			fa := &formAsker{t: t, answers: c.answers}
			got, err := Answerer(log, "srv", "mcp_srv_form", fa)(t.Context(), "Fill \x1b[31min\x1b[0m the form.", json.RawMessage(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("answer %+v, want %+v", got, c.want)
			}
			if len(fa.asked) != c.asks {
				t.Fatalf("asked %d times, want %d", len(fa.asked), c.asks)
			}
			for i, q := range fa.asked {
				if q.PluginID != "mcp:srv" || q.Kind != "tool" || q.Name != "mcp_srv_form" || !strings.HasSuffix(q.Text, "Fill in the form.") {
					t.Errorf("ask %d: %+v", i, q)
				}
				if fa.schemas[i] != c.schema {
					t.Errorf("ask %d: schema %s, want the server's %s", i, fa.schemas[i], c.schema)
				}
				if i > 0 && !strings.HasPrefix(q.Text, c.retry[i-1]) {
					t.Errorf("ask %d: %q, want it to start with %q", i, q.Text, c.retry[i-1])
				}
			}
			if c.warn != "" && !strings.Contains(logs.String(), c.warn) {
				t.Errorf("log %q lacks %q", logs.String(), c.warn)
			}
		})
	}
}
