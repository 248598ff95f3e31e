package elicit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/questions"
)

type askerFunc func(context.Context, questions.Question) (questions.Answer, error)

func (f askerFunc) Ask(ctx context.Context, q questions.Question) (questions.Answer, error) {
	return f(ctx, q)
}

// elicitRun answers the form schema (with message) by answer, called with each question in
// turn, and returns the result, the questions asked and the log.
func elicitRun(t *testing.T, message, schema string, answer func(i int, q questions.Question) (questions.Answer, error)) (mcpclient.Elicited, []questions.Question, string) {
	t.Helper()
	var logs bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn})
	var asked []questions.Question
	elicit := Answerer(log, "srv", "mcp_srv_form", askerFunc(func(_ context.Context, q questions.Question) (questions.Answer, error) {
		asked = append(asked, q)
		if len(asked) > 50 {
			t.Fatalf("asked %d questions", len(asked))
		}
		return answer(len(asked)-1, q)
	}))
	res, err := elicit(t.Context(), message, json.RawMessage(schema))
	if err != nil {
		t.Fatalf("elicit: %v", err)
	}
	return res, asked, logs.String()
}

func text(s string) questions.Answer { return questions.Answer{Kind: questions.AnswerText, Text: s} }
func choice(s string) questions.Answer {
	return questions.Answer{Kind: questions.AnswerChoice, Choice: s}
}

// answers answers the i-th question with the i-th answer.
func answers(as ...questions.Answer) func(int, questions.Question) (questions.Answer, error) {
	return func(i int, _ questions.Question) (questions.Answer, error) {
		if i >= len(as) {
			return questions.Answer{Kind: questions.AnswerSkipped}, nil
		}
		return as[i], nil
	}
}

func labels(q questions.Question) []string {
	var out []string
	for _, o := range q.Options {
		out = append(out, o.Label)
	}
	return out
}

// TestElicitFieldOrder: the fields are asked in the order the server wrote them, not in
// any map's order.
func TestElicitFieldOrder(t *testing.T) {
	keys := []string{"zeta", "alpha", "mu", "beta", "omega", "delta", "kappa", "eta", "iota", "gamma"}
	var props []string
	for _, k := range keys {
		props = append(props, fmt.Sprintf("%q:{\"type\":\"string\"}", k))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	form, err := parseElicitForm(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range form.fields {
		got = append(got, f.key)
	}
	if !slices.Equal(got, keys) {
		t.Fatalf("fields %v, want %v", got, keys)
	}
	res, asked, _ := elicitRun(t, "m", schema, func(i int, _ questions.Question) (questions.Answer, error) { return text(keys[i] + "!"), nil })
	if res.Action != "accept" || len(asked) != len(keys) {
		t.Fatalf("result %+v after %d questions", res, len(asked))
	}
	for i, q := range asked {
		if !strings.Contains(q.Text, fmt.Sprintf("Field %d of %d: %s", i+1, len(keys), keys[i])) {
			t.Errorf("question %d = %q, want field %s", i, q.Text, keys[i])
		}
		if res.Content[keys[i]] != keys[i]+"!" {
			t.Errorf("content %v", res.Content)
		}
	}
}

// TestElicitFieldKinds: each kind of field is asked with its options and its answer is
// converted to the field's type (titles mapped back to their const values).
func TestElicitFieldKinds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		field   string // the schema of field "f"
		answer  questions.Answer
		options []string
		text    bool
		want    any // nil: left out
	}{
		{"free string", `{"type":"string"}`, text(" Ada "), []string{"skip", "decline"}, true, " Ada "},
		{"boolean yes", `{"type":"boolean"}`, choice("yes"), []string{"yes", "no", "skip", "decline"}, false, true},
		{"boolean no", `{"type":"boolean"}`, choice("no"), []string{"yes", "no", "skip", "decline"}, false, false},
		{"integer", `{"type":"integer","minimum":1,"maximum":100}`, text("7"), []string{"skip", "decline"}, true, int64(7)},
		{"number", `{"type":"number"}`, text("2.5"), []string{"skip", "decline"}, true, 2.5},
		{"date", `{"type":"string","format":"date"}`, text("2020-01-31"), []string{"skip", "decline"}, true, "2020-01-31"},
		{"enum", `{"type":"string","enum":["Monica","Rachel"]}`, choice("Rachel"), []string{"Monica", "Rachel", "skip", "decline"}, false, "Rachel"},
		{"oneOf titles", `{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-3","title":"Wonder Woman"}]}`,
			choice("Wonder Woman"), []string{"Superman", "Wonder Woman", "skip", "decline"}, false, "hero-3"},
		{"legacy enumNames", `{"type":"string","enum":["pet-1","pet-2"],"enumNames":["Cats","Dogs"]}`, choice("Dogs"), []string{"Cats", "Dogs", "skip", "decline"}, false, "pet-2"},
		{"a choice labelled like skip", `{"type":"string","enum":["skip","go"]}`, choice("skip (skip)"), []string{"skip (skip)", "go", "skip", "decline"}, false, "skip"},
		{"multi items.enum", `{"type":"array","items":{"type":"string","enum":["Guitar","Piano","Drums"]},"minItems":1,"maxItems":3}`,
			text("Piano, Drums"), []string{"skip", "decline"}, true, []any{"Piano", "Drums"}},
		{"multi items.anyOf by title and value", `{"type":"array","items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"}]}}`,
			text("salmon, fish-1, Salmon"), []string{"skip", "decline"}, true, []any{"fish-2", "fish-1"}},
		{"optional skip leaves it out", `{"type":"integer","default":42}`, choice("skip"), []string{"skip", "decline"}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, asked, logs := elicitRun(t, "Please", `{"type":"object","properties":{"f":`+tc.field+`}}`, answers(tc.answer))
			if res.Action != "accept" || len(asked) != 1 {
				t.Fatalf("result %+v after %d questions; log %s", res, len(asked), logs)
			}
			q := asked[0]
			if !slices.Equal(labels(q), tc.options) || q.AllowText != tc.text || q.PluginID != "mcp:srv" || q.Kind != "tool" || q.Name != "mcp_srv_form" {
				t.Fatalf("question %+v, want options %v, text %v", q, tc.options, tc.text)
			}
			got, ok := res.Content["f"]
			if tc.want == nil && ok || tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("content %#v, want f = %#v", res.Content, tc.want)
			}
		})
	}
}

// TestElicitQuestionText: the first question carries the message; each names its field by
// title (else key) with its description and, when optional, a skip that says the default.
func TestElicitQuestionText(t *testing.T) {
	schema := `{"type":"object","required":["name"],"properties":{
		"name":{"type":"string","title":"Your name","description":"full and \u001b[31mlegal"},
		"n":{"type":"integer","minimum":1,"maximum":100,"default":42,"description":"a number"},
		"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"}],"default":"h1"}}}`
	res, asked, _ := elicitRun(t, "Fill this in:", schema, answers(text("Ada"), choice("skip"), choice("skip")))
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, map[string]any{"name": "Ada"}) || len(asked) != 3 {
		t.Fatalf("result %+v after %d questions", res, len(asked))
	}
	if want := "Fill this in:\n\nField 1 of 3: Your name (required)\nfull and legal"; asked[0].Text != want {
		t.Errorf("first question %q, want %q", asked[0].Text, want)
	}
	if !slices.Equal(labels(asked[0]), []string{"decline"}) {
		t.Errorf("a required field offers %v", labels(asked[0]))
	}
	if want := "Field 2 of 3: n\na number\nA whole number from 1 to 100."; asked[1].Text != want {
		t.Errorf("second question %q, want %q", asked[1].Text, want)
	}
	if d := asked[1].Options[0].Description; !strings.Contains(d, "default applies: 42") {
		t.Errorf("skip says %q", d)
	}
	if d := asked[2].Options[1].Description; !strings.Contains(d, "default applies: Superman") {
		t.Errorf("skip says %q", d)
	}
}

// TestElicitRetry: an answer the field's schema refuses is asked again with the reason;
// three refused answers decline the form.
func TestElicitRetry(t *testing.T) {
	email := `{"type":"object","properties":{"email":{"type":"string","format":"email"}}}`
	res, asked, _ := elicitRun(t, "m", email, answers(text("not-an-email"), text("ada@example.com")))
	if res.Action != "accept" || res.Content["email"] != "ada@example.com" || len(asked) != 2 {
		t.Fatalf("result %+v after %d questions", res, len(asked))
	}
	if !strings.HasPrefix(asked[1].Text, "Not accepted: ") || !strings.Contains(asked[1].Text, "not-an-email") || !strings.Contains(asked[1].Text, "email") {
		t.Errorf("retry %q", asked[1].Text)
	}

	rng := `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":100}}}`
	res, asked, _ = elicitRun(t, "m", rng, answers(text("seven"), text("500"), text("7")))
	if res.Action != "accept" || res.Content["n"] != int64(7) || len(asked) != 3 {
		t.Fatalf("result %+v after %d questions", res, len(asked))
	}
	if !strings.Contains(asked[1].Text, `"seven" is not a whole number`) || !strings.Contains(asked[2].Text, "100") {
		t.Errorf("retries %q, %q", asked[1].Text, asked[2].Text)
	}

	res, asked, logs := elicitRun(t, "m", rng, answers(text("0"), text("101"), text("x"), text("7")))
	if res.Action != "decline" || len(asked) != 3 || !strings.Contains(logs, "3 answers were not accepted") {
		t.Fatalf("three bad answers: %+v after %d questions; log %s", res, len(asked), logs)
	}

	multi := `{"type":"object","properties":{"m":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":2}}}`
	res, asked, _ = elicitRun(t, "m", multi, answers(text("a, z"), text("a,b,c"), text("c, a")))
	if res.Action != "accept" || !reflect.DeepEqual(res.Content["m"], []any{"c", "a"}) || len(asked) != 3 {
		t.Fatalf("multi: %+v after %d questions", res, len(asked))
	}
}

// TestElicitEnds: decline on any question declines the form, a skipped question or a failing
// questions.Asker cancels it, and a form of no fields is accepted or declined.
func TestElicitEnds(t *testing.T) {
	three := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"},"c":{"type":"string"}}}`
	for _, tc := range []struct {
		name   string
		schema string
		answer func(int, questions.Question) (questions.Answer, error)
		action string
		asked  int
	}{
		{"decline mid-form", three, answers(text("x"), choice("decline")), "decline", 2},
		{"skipped cancels", three, answers(text("x"), questions.Answer{Kind: questions.AnswerSkipped}), "cancel", 2},
		{"asker error cancels", three, func(int, questions.Question) (questions.Answer, error) {
			return questions.Answer{}, errors.New("tty gone")
		}, "cancel", 1},
		{"no fields: accept", `{"type":"object","properties":{}}`, answers(choice("accept")), "accept", 1},
		{"no fields: decline", `{"type":"object"}`, answers(choice("decline")), "decline", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, asked, _ := elicitRun(t, "m", tc.schema, tc.answer)
			if res.Action != tc.action || len(asked) != tc.asked {
				t.Fatalf("result %+v after %d questions, want %s after %d", res, len(asked), tc.action, tc.asked)
			}
			if res.Action != "accept" && res.Content != nil {
				t.Fatalf("a %s carries content %v", res.Action, res.Content)
			}
			for _, q := range asked {
				if !slices.Contains(labels(q), "decline") {
					t.Fatalf("question %q offers no decline", q.Text)
				}
			}
		})
	}
}

// TestElicitDeclinedForms: a form cwx cannot ask is declined before any question, with a
// warning that names the field.
func TestElicitDeclinedForms(t *testing.T) {
	var many []string
	for i := range maxElicitFields + 1 {
		many = append(many, fmt.Sprintf(`"f%d":{"type":"string"}`, i))
	}
	for _, tc := range []struct {
		name, schema, log string
	}{
		{"more than 32 fields", `{"type":"object","properties":{` + strings.Join(many, ",") + `}}`, "more than 32 fields"},
		{"nested object", `{"type":"object","properties":{"ok":{"type":"string"},"addr":{"type":"object","properties":{"city":{"type":"string"}}}}}`, "field=addr"},
		{"unknown type", `{"type":"object","properties":{"x":{"type":"null"}}}`, "field=x"},
		{"array of numbers", `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"number"}}}}`, "field=xs"},
		{"enum of numbers", `{"type":"object","properties":{"e":{"type":"string","enum":[1,2]}}}`, "field=e"},
		{"external ref", `{"type":"object","properties":{"r":{"type":"string","$ref":"file:///etc/passwd"}}}`, "cwx loads no schema"},
		{"not an object", `[1]`, "not a JSON object"},
		{"top type", `{"type":"array"}`, "not of type object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, asked, logs := elicitRun(t, "m", tc.schema, answers(text("x"), text("x")))
			if res.Action != "decline" || len(asked) != 0 || !strings.Contains(logs, tc.log) {
				t.Fatalf("result %+v after %d questions; log %q, want %q", res, len(asked), logs, tc.log)
			}
		})
	}
	if res, err := Answerer(hclog.NewNullLogger(), "srv", "t", nil)(t.Context(), "m", json.RawMessage(`{"type":"object"}`)); err != nil || res.Action != "decline" {
		t.Fatalf("without an questions.Asker: %+v, %v", res, err)
	}
}

// TestElicitBounds: questions keep to core/questions' bounds: a long message is cut, a
// choice list too long for the options is typed instead.
func TestElicitBounds(t *testing.T) {
	var enum []string
	for i := range 20 {
		enum = append(enum, fmt.Sprintf("%q", fmt.Sprintf("c%02d", i)))
	}
	schema := `{"type":"object","required":["c"],"properties":{"c":{"type":"string","title":"Pick","enum":[` + strings.Join(enum, ",") + `]}}}`
	res, asked, _ := elicitRun(t, strings.Repeat("long ", 2000), schema, answers(text("c17")))
	if res.Action != "accept" || res.Content["c"] != "c17" || len(asked) != 1 {
		t.Fatalf("result %+v after %d questions", res, len(asked))
	}
	q := asked[0]
	if len(q.Text) > questions.MaxText || !q.AllowText || len(q.Options) > questions.MaxChoice || !strings.Contains(q.Text, "One of: c00, c01") || !strings.Contains(q.Text, "…") {
		t.Fatalf("question of %d bytes, %d options, text %v: %.200q", len(q.Text), len(q.Options), q.AllowText, q.Text[len(q.Text)-200:])
	}
}

// FuzzParseElicitForm: a server's requested schema, whatever its bytes, is parsed or refused
// without a panic, and every field of a parsed form makes a question and converts any text.
func FuzzParseElicitForm(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9},"b":{"type":"boolean"}}}`,
		`{"type":"object","properties":{"c":{"type":"string","oneOf":[{"const":"a","title":"A"}]},"m":{"type":"array","items":{"enum":["x","y"]},"minItems":1}}}`,
		`{"type":"object","properties":{"o":{"type":"object"}}}`, `[]`, `{"properties":{"a":{"type":"string","enum":["p","q"],"enumNames":["P","Q"]}}}`,
	} {
		f.Add([]byte(s), "1, x")
	}
	f.Fuzz(func(t *testing.T, raw []byte, text string) {
		form, err := parseElicitForm(raw)
		if err != nil {
			return
		}
		for i, fl := range form.fields {
			_, _, _ = fl.question(questions.Question{PluginID: "mcp:s", Kind: "tool", Name: "t"}, "intro", i, len(form.fields), "")
			_, _ = fl.convert(text)
		}
	})
}
