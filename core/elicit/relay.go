package elicit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/questions"
)

// FormAsker is an Asker that can put a server's whole form to the person at once: `cwx
// serve --mcp`'s, for a client that declared elicitation, which shows the form as one
// elicitation of its own. q is attributed (PluginID mcp:<server>, Kind "tool", Name the
// model-facing tool name) and its Text is the server's message, stripped, preceded by why
// the last answer was not accepted when it is asked again; schema is the requested schema
// as the server wrote it (its fields in the server's order), one Answerer checked it can
// ask. The answer is the client's: action "accept" with the form's content, "decline" or
// "cancel"; Answerer checks the content before it goes back to the server.
type FormAsker interface {
	AskForm(ctx context.Context, q questions.Question, schema json.RawMessage) (action string, content map[string]any, err error)
}

// relayElicitForm puts the whole form to fa, checks the answer against the requested schema
// (only the form's fields, and the whole schema) and asks again with the reason, at most
// maxElicitTries times, before it declines. A schema holding a string that is not inert (a
// title, a description, a choice) is declined without asking: the client shows it as is.
func relayElicitForm(ctx context.Context, fa FormAsker, base questions.Question, message string, form *elicitForm) (mcpclient.Elicited, string) {
	decline := mcpclient.Elicited{Action: "decline"}
	if why := inertSchema(form.raw); why != "" {
		return decline, why
	}
	message = strings.TrimSpace(inert.Strip(message))
	if message == "" {
		message = "The server asks you to fill in a form."
	}
	retry := ""
	for range maxElicitTries {
		q := base
		q.Text = message
		if retry != "" {
			q.Text = cutPart("Not accepted: "+inert.Strip(retry)) + "\n\n" + message
		}
		q.Text, _ = inert.Cut(q.Text, questions.MaxText)
		action, content, err := fa.AskForm(ctx, q, form.raw)
		switch {
		case err != nil:
			return mcpclient.Elicited{Action: "cancel"}, ""
		case action == "decline":
			return decline, ""
		case action != "accept":
			return mcpclient.Elicited{Action: "cancel"}, ""
		}
		if content == nil {
			content = map[string]any{}
		}
		if retry = form.check(content); retry == "" {
			return mcpclient.Elicited{Action: "accept", Content: content}, ""
		}
	}
	return decline, fmt.Sprintf("%d answers to the form were not accepted, the last: %s", maxElicitTries, retry)
}

// check says why content does not answer the form, or "": a key that is not one of its
// fields, or a value the requested schema refuses.
func (f *elicitForm) check(content map[string]any) string {
	for _, k := range sortedKeys(content) {
		if !slices.ContainsFunc(f.fields, func(fl *elicitField) bool { return fl.key == k }) {
			return fmt.Sprintf("%q is not a field of the form", cutPart(inert.Strip(k)))
		}
	}
	return validateElicit(f.schema, content)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// inertSchema says which string of the requested schema is not inert (core/inert), or "".
func inertSchema(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		t, err := dec.Token()
		if err == io.EOF {
			return ""
		}
		if err != nil {
			return "the requested schema is not JSON"
		}
		s, ok := t.(string)
		if !ok {
			continue
		}
		if err := inert.Check(s); err != nil {
			return fmt.Sprintf("the requested schema's text %q %v", cutPart(inert.Strip(s)), err)
		}
	}
}
