package elicit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/questions"
)

// Bounds of an elicitation form.
const (
	maxElicitFields = 32       // fields of one form; more are declined
	maxElicitSchema = 64 << 10 // bytes of the requested schema; more is declined
	maxElicitTries  = 3        // answers to one field's question before the form is declined
	maxElicitPart   = 1024     // bytes of a field's description, hint or retry reason in a question
)

// The labels of the options every field's question may carry besides the field's choices.
const (
	elicitDecline = "decline"
	elicitSkip    = "skip"
	elicitAccept  = "accept"
	elicitYes     = "yes"
	elicitNo      = "no"
)

// elicitForm is a requested schema cwx can ask: its fields in the server's order and the
// whole schema compiled.
type elicitForm struct {
	raw    json.RawMessage // the requested schema as the server wrote it
	fields []*elicitField
	schema *jsonschema.Schema
}

// elicitField is one field of a form.
type elicitField struct {
	key, title, description string
	kind                    string // string, number, integer, boolean or array
	choices                 []elicitChoice
	format                  string
	minimum, maximum        *float64
	minLength, maxLength    *int
	minItems, maxItems      *int
	def                     json.RawMessage
	required                bool
	schema                  *jsonschema.Schema // the field's sub-schema
}

// elicitChoice is one value a choice field takes and the label the person sees.
type elicitChoice struct{ value, label string }

// elicitRefusal is why a form cannot be asked; field names the field at fault, if one is.
type elicitRefusal struct{ field, why string }

func (r *elicitRefusal) Error() string {
	if r.field == "" {
		return r.why
	}
	return fmt.Sprintf("field %q %s", r.field, r.why)
}

// Answerer answers an MCP server's elicitation during a call of its tool name by asking the
// call's asker, field by field, the server named as the questions' author; an asker that is
// a FormAsker is put the whole form at once (the package's doc). Every elicitation without
// an asker is declined.
func Answerer(log hclog.Logger, server, name string, asker questions.Asker) func(context.Context, string, json.RawMessage) (mcpclient.Elicited, error) {
	return func(ctx context.Context, message string, schema json.RawMessage) (mcpclient.Elicited, error) {
		if asker == nil {
			return mcpclient.Elicited{Action: "decline"}, nil
		}
		form, err := parseElicitForm(schema)
		if err != nil {
			r, _ := errors.AsType[*elicitRefusal](err)
			if r == nil {
				r = &elicitRefusal{why: err.Error()}
			}
			log.Warn("mcp: an elicitation form cwx cannot ask was declined", "server", server, "field", r.field, "reason", r.why)
			return mcpclient.Elicited{Action: "decline"}, nil
		}
		base := questions.Question{PluginID: mcpclient.OwnerPrefix + server, Kind: "tool", Name: name}
		var res mcpclient.Elicited
		var why string
		if fa, ok := asker.(FormAsker); ok {
			res, why = relayElicitForm(ctx, fa, base, message, form)
		} else {
			res, why = askElicitForm(ctx, asker, base, message, form)
		}
		if why != "" {
			log.Warn("mcp: an elicitation form was declined", "server", server, "reason", why)
		}
		return res, nil
	}
}

// parseElicitForm reads a requested schema into a form, or says why it cannot be asked.
func parseElicitForm(raw json.RawMessage) (*elicitForm, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte(`{"type":"object"}`)
	}
	if len(raw) > maxElicitSchema {
		return nil, &elicitRefusal{why: fmt.Sprintf("the requested schema is %d bytes; the limit is %d", len(raw), maxElicitSchema)}
	}
	keys, props, required, err := elicitProperties(raw)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("the requested schema refers to %s; cwx loads no schema", u)
	}
	const loc = "mem:///elicitation.json"
	if err := c.AddResource(loc, bytes.NewReader(raw)); err != nil {
		return nil, &elicitRefusal{why: "the requested schema is not a JSON Schema: " + oneLineErr(err)}
	}
	form := &elicitForm{raw: raw}
	if form.schema, err = c.Compile(loc); err != nil {
		return nil, &elicitRefusal{why: "the requested schema is not a JSON Schema: " + oneLineErr(err)}
	}
	for _, k := range keys {
		f, err := parseElicitField(k, props[k])
		if err != nil {
			return nil, err
		}
		for _, r := range required {
			f.required = f.required || r == k
		}
		if f.schema, err = c.Compile(loc + "#/properties/" + pointerToken(k)); err != nil {
			return nil, &elicitRefusal{field: k, why: "has a schema cwx cannot compile: " + oneLineErr(err)}
		}
		form.fields = append(form.fields, f)
	}
	return form, nil
}

// elicitProperties reads the top of a requested schema with the JSON tokenizer, so the
// fields keep the order the server wrote them in: the property names in order, each one's
// schema, and the required names.
func elicitProperties(raw []byte) (keys []string, props map[string]json.RawMessage, required []string, err error) {
	notObject := &elicitRefusal{why: "the requested schema is not a JSON object"}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, nil, notObject
	}
	props = map[string]json.RawMessage{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, nil, notObject
		}
		top, _ := t.(string)
		if seen[top] {
			return nil, nil, nil, &elicitRefusal{why: fmt.Sprintf("the requested schema repeats %q", top)}
		}
		seen[top] = true
		switch top {
		case "properties":
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return nil, nil, nil, &elicitRefusal{why: "the requested schema's properties are not an object"}
			}
			for dec.More() {
				t, err := dec.Token()
				if err != nil {
					return nil, nil, nil, notObject
				}
				k, _ := t.(string)
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					return nil, nil, nil, &elicitRefusal{field: k, why: "is not valid JSON"}
				}
				if _, dup := props[k]; dup {
					return nil, nil, nil, &elicitRefusal{field: k, why: "is named twice"}
				}
				if len(keys) == maxElicitFields {
					return nil, nil, nil, &elicitRefusal{why: fmt.Sprintf("the form has more than %d fields, the limit", maxElicitFields)}
				}
				keys, props[k] = append(keys, k), v
			}
			if _, err := dec.Token(); err != nil {
				return nil, nil, nil, notObject
			}
		case "required":
			if err := dec.Decode(&required); err != nil {
				return nil, nil, nil, &elicitRefusal{why: "the requested schema's required is not a list of names"}
			}
		case "type":
			var typ string
			if err := dec.Decode(&typ); err != nil || typ != "object" {
				return nil, nil, nil, &elicitRefusal{why: "the requested schema is not of type object"}
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, nil, notObject
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, nil, &elicitRefusal{why: "the requested schema holds more than one JSON value"}
	}
	return keys, props, required, nil
}

// titledChoice is one {const, title} of a oneOf or anyOf list of choices.
type titledChoice struct {
	Const *string `json:"const"`
	Title string  `json:"title"`
}

// parseElicitField reads one field's schema, or says why it is not a field of a form.
func parseElicitField(key string, raw json.RawMessage) (*elicitField, error) {
	var p struct {
		Type        string          `json:"type"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Format      string          `json:"format"`
		Enum        []string        `json:"enum"`
		EnumNames   []string        `json:"enumNames"`
		OneOf       []titledChoice  `json:"oneOf"`
		AnyOf       []titledChoice  `json:"anyOf"`
		Minimum     *float64        `json:"minimum"`
		Maximum     *float64        `json:"maximum"`
		MinLength   *int            `json:"minLength"`
		MaxLength   *int            `json:"maxLength"`
		MinItems    *int            `json:"minItems"`
		MaxItems    *int            `json:"maxItems"`
		Default     json.RawMessage `json:"default"`
		Properties  json.RawMessage `json:"properties"`
		Items       *struct {
			Type  string         `json:"type"`
			Enum  []string       `json:"enum"`
			OneOf []titledChoice `json:"oneOf"`
			AnyOf []titledChoice `json:"anyOf"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &elicitRefusal{field: key, why: "is not a primitive field of a form: " + oneLineErr(err)}
	}
	f := &elicitField{key: key, title: p.Title, description: p.Description, kind: p.Type, format: p.Format,
		minimum: p.Minimum, maximum: p.Maximum, minLength: p.MinLength, maxLength: p.MaxLength,
		minItems: p.MinItems, maxItems: p.MaxItems, def: p.Default}
	if p.Properties != nil || p.Type == "object" {
		return nil, &elicitRefusal{field: key, why: "is a nested object; a form holds only primitive fields"}
	}
	var err error
	switch p.Type {
	case "string":
		switch {
		case len(p.Enum) > 0:
			for i, v := range p.Enum {
				label := v
				if len(p.EnumNames) == len(p.Enum) {
					label = p.EnumNames[i]
				}
				f.choices = append(f.choices, elicitChoice{value: v, label: label})
			}
		case len(p.OneOf) > 0:
			f.choices, err = titledChoices(key, p.OneOf)
		case len(p.AnyOf) > 0:
			f.choices, err = titledChoices(key, p.AnyOf)
		}
	case "number", "integer", "boolean":
	case "array":
		it := p.Items
		switch {
		case it == nil:
			return nil, &elicitRefusal{field: key, why: "is an array without items"}
		case it.Type != "" && it.Type != "string":
			return nil, &elicitRefusal{field: key, why: fmt.Sprintf("is an array of %s; a form's arrays choose strings", it.Type)}
		case len(it.Enum) > 0:
			for _, v := range it.Enum {
				f.choices = append(f.choices, elicitChoice{value: v, label: v})
			}
		case len(it.AnyOf) > 0:
			f.choices, err = titledChoices(key, it.AnyOf)
		case len(it.OneOf) > 0:
			f.choices, err = titledChoices(key, it.OneOf)
		default:
			return nil, &elicitRefusal{field: key, why: "is an array whose items name no choices"}
		}
	case "":
		return nil, &elicitRefusal{field: key, why: "has no type"}
	default:
		return nil, &elicitRefusal{field: key, why: fmt.Sprintf("is of type %q, which a form cannot hold", p.Type)}
	}
	if err != nil {
		return nil, err
	}
	for i := range f.choices {
		f.choices[i].label = inert.Strip(f.choices[i].label)
		if strings.TrimSpace(f.choices[i].label) == "" {
			f.choices[i].label = strconv.Quote(f.choices[i].value)
		}
		f.choices[i].label, _ = inert.Cut(f.choices[i].label, questions.MaxOptionText)
	}
	return f, nil
}

func titledChoices(key string, list []titledChoice) ([]elicitChoice, error) {
	out := make([]elicitChoice, 0, len(list))
	for _, c := range list {
		if c.Const == nil {
			return nil, &elicitRefusal{field: key, why: "lists a choice without a const"}
		}
		label := c.Title
		if label == "" {
			label = *c.Const
		}
		out = append(out, elicitChoice{value: *c.Const, label: label})
	}
	return out, nil
}

// askElicitForm asks the form's fields in order and returns the answer to the server, with
// why it was declined when cwx, not the person, declined it.
func askElicitForm(ctx context.Context, asker questions.Asker, base questions.Question, message string, form *elicitForm) (mcpclient.Elicited, string) {
	decline := mcpclient.Elicited{Action: "decline"}
	cancel := mcpclient.Elicited{Action: "cancel"}
	message = strings.TrimSpace(inert.Strip(message))
	if len(form.fields) == 0 {
		text := message
		if text == "" {
			text = "The server asks you to accept or decline."
		}
		q, why := checkElicitQuestion(base, text, []questions.Option{{Label: elicitAccept}, {Label: elicitDecline}}, false)
		if why != "" {
			return decline, why
		}
		for range maxElicitTries {
			a, err := asker.Ask(ctx, q)
			switch {
			case err != nil || a.Kind == questions.AnswerSkipped:
				return cancel, ""
			case a.Kind == questions.AnswerChoice && a.Choice == elicitAccept:
				return mcpclient.Elicited{Action: "accept", Content: map[string]any{}}, ""
			case a.Kind == questions.AnswerChoice && a.Choice == elicitDecline:
				return decline, ""
			}
		}
		return decline, "the answers were not among the options"
	}
	content := map[string]any{}
	for i, f := range form.fields {
		intro := ""
		if i == 0 {
			intro = message
		}
		retry := ""
		answered := false
		for try := 0; try < maxElicitTries && !answered; try++ {
			q, labels, why := f.question(base, intro, i, len(form.fields), retry)
			if why != "" {
				return decline, fmt.Sprintf("field %q: %s", f.key, why)
			}
			a, err := asker.Ask(ctx, q)
			if err != nil || a.Kind == questions.AnswerSkipped {
				return cancel, ""
			}
			v, act, reason := f.answer(q, labels, a)
			switch act {
			case elicitDecline:
				return decline, ""
			case elicitSkip:
				answered = true
			case elicitAccept:
				if reason = validateElicit(f.schema, v); reason == "" {
					content[f.key], answered = v, true
				}
			}
			retry = reason
		}
		if !answered {
			return decline, fmt.Sprintf("field %q: %d answers were not accepted, the last: %s", f.key, maxElicitTries, retry)
		}
	}
	if why := validateElicit(form.schema, content); why != "" {
		return decline, "the answers do not meet the requested schema: " + why
	}
	return mcpclient.Elicited{Action: "accept", Content: content}, ""
}

// question is field i (of n) asked: the intro (the server's message, on the first field only),
// the reason the last answer was not accepted, the field's name, description and what it
// takes; and which option label stands for which value.
func (f *elicitField) question(base questions.Question, intro string, i, n int, retry string) (questions.Question, map[string]string, string) {
	labels := map[string]string{}
	var opts []questions.Option
	allowText := false
	hint := f.hint()
	switch {
	case f.kind == "boolean":
		opts = []questions.Option{{Label: elicitYes}, {Label: elicitNo}}
	case f.kind == "string" && len(f.choices) > 0:
		opts = f.choiceOptions(labels)
		if opts == nil { // too many, or labels that cannot be told apart: the person types one
			allowText = true
			hint = "One of: " + f.choiceList() + "."
		}
	default:
		allowText = true
	}
	if !f.required {
		desc := "leave it out"
		if d := f.defaultText(); d != "" {
			desc += "; the server's default applies: " + d
		}
		opts = append(opts, questions.Option{Label: elicitSkip, Description: desc})
	}
	opts = append(opts, questions.Option{Label: elicitDecline, Description: "decline the whole form"})

	var body []string
	if n > 1 || f.title != "" || f.description != "" {
		name := f.title
		if strings.TrimSpace(name) == "" {
			name = f.key
		}
		name = strings.TrimSpace(inert.Strip(name))
		if name == "" {
			name = strconv.Quote(f.key)
		}
		head := name
		if n > 1 {
			head = fmt.Sprintf("Field %d of %d: %s", i+1, n, name)
		}
		if f.required {
			head += " (required)"
		}
		body = append(body, cutPart(head))
		if d := strings.TrimSpace(inert.Strip(f.description)); d != "" {
			body = append(body, cutPart(d))
		}
	}
	if hint != "" {
		body = append(body, cutPart(hint))
	}
	tail := strings.Join(body, "\n")
	head := ""
	if retry != "" {
		head = cutPart("Not accepted: "+inert.Strip(retry)) + "\n\n"
	}
	if intro != "" {
		room := questions.MaxText - len(head) - len(tail) - len("…\n\n")
		cut, more := inert.Cut(intro, max(room, 0))
		if more {
			cut += "…"
		}
		if cut != "" {
			head += cut
			if tail != "" {
				head += "\n\n"
			}
		}
	}
	text := head + tail
	if strings.TrimSpace(text) == "" {
		text = "The server asks for " + strconv.Quote(f.key) + "."
	}
	q, why := checkElicitQuestion(base, text, opts, allowText)
	return q, labels, why
}

// choiceOptions are the options of a single-choice field, labels mapped to values; nil when
// they do not fit one question or cannot be told apart.
func (f *elicitField) choiceOptions(labels map[string]string) []questions.Option {
	if len(f.choices)+2 > questions.MaxChoice {
		return nil
	}
	taken := map[string]bool{elicitSkip: true, elicitDecline: true}
	var opts []questions.Option
	for _, c := range f.choices {
		label := c.label
		if taken[label] {
			label, _ = inert.Cut(fmt.Sprintf("%s (%s)", c.label, inert.Strip(c.value)), questions.MaxOptionText)
		}
		if taken[label] {
			clear(labels)
			return nil
		}
		taken[label], labels[label] = true, c.value
		opts = append(opts, questions.Option{Label: label})
	}
	return opts
}

// choiceList is the field's choices as the person types them.
func (f *elicitField) choiceList() string {
	var b strings.Builder
	for i, c := range f.choices {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.label)
		if b.Len() > maxElicitPart {
			break
		}
	}
	return b.String()
}

// hint says what a field takes, or "" when it is plain text.
func (f *elicitField) hint() string {
	switch f.kind {
	case "integer", "number":
		what := "A number"
		if f.kind == "integer" {
			what = "A whole number"
		}
		switch {
		case f.minimum != nil && f.maximum != nil:
			return fmt.Sprintf("%s from %s to %s.", what, fmtNum(*f.minimum), fmtNum(*f.maximum))
		case f.minimum != nil:
			return fmt.Sprintf("%s of at least %s.", what, fmtNum(*f.minimum))
		case f.maximum != nil:
			return fmt.Sprintf("%s of at most %s.", what, fmtNum(*f.maximum))
		}
		return what + "."
	case "array":
		return fmt.Sprintf("Pick %s of these, separated by commas: %s.", countPhrase(f.minItems, f.maxItems), f.choiceList())
	case "string":
		var parts []string
		switch f.format {
		case "email":
			parts = append(parts, "An email address")
		case "uri":
			parts = append(parts, "A URI, such as https://example.com/")
		case "date":
			parts = append(parts, "A date, YYYY-MM-DD")
		case "date-time":
			parts = append(parts, "A date and time, such as 2006-01-02T15:04:05Z")
		}
		switch {
		case f.minLength != nil && f.maxLength != nil:
			parts = append(parts, fmt.Sprintf("%d to %d characters", *f.minLength, *f.maxLength))
		case f.minLength != nil:
			parts = append(parts, fmt.Sprintf("at least %d characters", *f.minLength))
		case f.maxLength != nil:
			parts = append(parts, fmt.Sprintf("at most %d characters", *f.maxLength))
		}
		if len(parts) == 0 {
			return ""
		}
		s := strings.Join(parts, ", ") + "."
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return ""
}

func countPhrase(lo, hi *int) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d to %d", *lo, *hi)
	case lo != nil:
		return fmt.Sprintf("at least %d", *lo)
	case hi != nil:
		return fmt.Sprintf("at most %d", *hi)
	}
	return "any"
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// defaultText is the field's default as the person reads it (a choice by its label), or "".
func (f *elicitField) defaultText() string {
	if len(f.def) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(f.def, &s) == nil {
		for _, c := range f.choices {
			if c.value == s {
				return c.label
			}
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, f.def) != nil {
		return ""
	}
	out, more := inert.Cut(inert.Strip(b.String()), 200)
	if more {
		out += "…"
	}
	return out
}

// answer reads the person's answer to the field's question q: the value and "accept", or
// "skip" or "decline", or why it is not accepted ("" action).
func (f *elicitField) answer(q questions.Question, labels map[string]string, a questions.Answer) (any, string, string) {
	w, why := questions.Reply(q, a)
	if why != "" {
		return nil, "", "the answer was " + why
	}
	if w.Kind == protocol.AnswerChoice {
		switch {
		case w.Choice == elicitDecline:
			return nil, elicitDecline, ""
		case w.Choice == elicitSkip:
			return nil, elicitSkip, ""
		case f.kind == "boolean":
			return w.Choice == elicitYes, elicitAccept, ""
		}
		return labels[w.Choice], elicitAccept, ""
	}
	v, reason := f.convert(w.Text)
	if reason != "" {
		return nil, "", reason
	}
	return v, elicitAccept, ""
}

// convert turns the person's text into the field's type.
func (f *elicitField) convert(text string) (any, string) {
	t := strings.TrimSpace(text)
	switch f.kind {
	case "integer":
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return nil, fmt.Sprintf("%q is not a whole number", t)
		}
		return n, ""
	case "number":
		n, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, fmt.Sprintf("%q is not a number", t)
		}
		return n, ""
	case "array":
		out := []any{}
		seen := map[string]bool{}
		for _, item := range strings.Split(t, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			v, ok := f.lookup(item)
			if !ok {
				return nil, fmt.Sprintf("%q is not one of the choices", item)
			}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		return out, ""
	case "string":
		if len(f.choices) > 0 {
			v, ok := f.lookup(t)
			if !ok {
				return nil, fmt.Sprintf("%q is not one of the choices", t)
			}
			return v, ""
		}
		return text, ""
	}
	return nil, "this question takes one of its options"
}

// lookup finds the choice the person typed, by label or value: exactly, else ignoring case
// when only one matches so.
func (f *elicitField) lookup(s string) (string, bool) {
	for _, c := range f.choices {
		if c.label == s || c.value == s {
			return c.value, true
		}
	}
	found, n := "", 0
	for _, c := range f.choices {
		if strings.EqualFold(c.label, s) || strings.EqualFold(c.value, s) {
			if n == 0 || found != c.value {
				n++
			}
			found = c.value
		}
	}
	return found, n == 1
}

// checkElicitQuestion bounds a question as a plugin's is bounded (questions.Check).
func checkElicitQuestion(base questions.Question, text string, opts []questions.Option, allowText bool) (questions.Question, string) {
	text, _ = inert.Cut(text, questions.MaxText)
	w := protocol.UserQuestion{Text: text, AllowText: allowText}
	for _, o := range opts {
		w.Options = append(w.Options, protocol.UserOption(o))
	}
	return questions.Check(base.PluginID, base.Kind, base.Name, w)
}

// validateElicit checks v against s and says why it fails, in the validator's words.
func validateElicit(s *jsonschema.Schema, v any) string {
	err := s.Validate(v)
	if err == nil {
		return ""
	}
	ve, ok := errors.AsType[*jsonschema.ValidationError](err)
	if !ok {
		return oneLineErr(err)
	}
	var leaves []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msg := e.Message
			if e.InstanceLocation != "" {
				msg = e.InstanceLocation + ": " + msg
			}
			leaves = append(leaves, msg)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	out, _ := inert.Cut(strings.Join(leaves, "; "), maxElicitPart)
	return out
}

// pointerToken is key as one token of a JSON pointer in a URL fragment.
func pointerToken(key string) string {
	key = strings.ReplaceAll(key, "~", "~0")
	key = strings.ReplaceAll(key, "/", "~1")
	return url.PathEscape(key)
}

func cutPart(s string) string {
	out, more := inert.Cut(s, maxElicitPart)
	if more {
		out += "…"
	}
	return out
}

func oneLineErr(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	out, _ := inert.Cut(s, maxElicitPart)
	return out
}
