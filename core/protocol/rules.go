package protocol

import "fmt"

// Rules a shape cannot express. The JS host implements the same rules by hand; the
// corpus keeps both in agreement. A rule returns a reason and the member it concerns
// (relative to the shape), or "" when the value is fine. Null counts as absent.
var shapeRules = map[string]func(v *jvalue) (reason, at string){
	"RegisterParams": registerRule,
	"RegisterResult": registerResultRule,
	"ActivateResult": taggedRule("status", map[string]fieldRule{
		"ok":     {required: []string{"tools"}, forbidden: []string{"diagnostic"}},
		"failed": {required: []string{"diagnostic"}, forbidden: []string{"tools", "commands"}},
	}),
	"CommandResult": taggedRule("kind", map[string]fieldRule{
		"success": {forbidden: []string{"prompt"}},
		"error":   {required: []string{"text"}, forbidden: []string{"prompt"}},
		"submit":  {required: []string{"prompt"}},
	}),
	"HookVerdict": taggedRule("kind", map[string]fieldRule{
		"abstain":  {forbidden: []string{"reason", "text", "input"}},
		"deny":     {required: []string{"reason"}, forbidden: []string{"text", "input"}},
		"ask":      {required: []string{"reason"}, forbidden: []string{"text", "input"}},
		"annotate": {required: []string{"text"}, forbidden: []string{"reason", "input"}},
		"revise":   {required: []string{"input"}, forbidden: []string{"reason", "text"}},
	}),
	"ContentBlock": taggedRule("type", map[string]fieldRule{
		"text":          {forbidden: []string{"data", "mime_type", "uri", "name", "blob"}},
		"image":         {required: []string{"data", "mime_type"}, forbidden: []string{"text", "uri", "name", "blob"}},
		"audio":         {required: []string{"data", "mime_type"}, forbidden: []string{"text", "uri", "name", "blob"}},
		"resource_link": {required: []string{"uri", "name"}, forbidden: []string{"text", "data", "blob"}},
		"resource":      {required: []string{"uri"}, forbidden: []string{"data", "name"}},
	}),
	"UserAnswer": taggedRule("kind", map[string]fieldRule{
		"choice":  {required: []string{"choice"}, forbidden: []string{"text"}},
		"text":    {required: []string{"text"}, forbidden: []string{"choice"}},
		"skipped": {forbidden: []string{"choice", "text"}},
	}),
}

type fieldRule struct{ required, forbidden []string }

// taggedRule checks the fields a tagged union requires or forbids for each tag value.
func taggedRule(tag string, byTag map[string]fieldRule) func(v *jvalue) (string, string) {
	return func(v *jvalue) (string, string) {
		r := byTag[v.get(tag).str]
		for _, f := range r.required {
			if !v.present(f) {
				return fmt.Sprintf("missing field %q (required when %s is %q)", f, tag, v.get(tag).str), ""
			}
		}
		for _, f := range r.forbidden {
			if v.present(f) {
				return fmt.Sprintf("unexpected field %q (not allowed when %s is %q)", f, tag, v.get(tag).str), ""
			}
		}
		return "", ""
	}
}

// registerRule: a tool needs input_schema and has no argument_hint; a command has no
// input_schema; a hook or prompt_section has neither.
func registerRule(v *jvalue) (string, string) {
	kind := v.get("kind").str
	spec := v.get("spec")
	schema, hint := spec.present("input_schema"), spec.present("argument_hint")
	switch {
	case kind == string(KindTool) && !schema:
		return "a tool needs spec.input_schema", ""
	case kind == string(KindTool) && hint:
		return "a tool takes no spec.argument_hint", ""
	case kind == string(KindCommand) && schema:
		return "a command takes no spec.input_schema", ""
	case kind != string(KindTool) && kind != string(KindCommand) && (schema || hint):
		return fmt.Sprintf("a %s takes neither input_schema nor argument_hint", kind), ""
	}
	return "", ""
}

// registerResultRule: exactly one of handle and refused.
func registerResultRule(v *jvalue) (string, string) {
	if v.present("handle") == v.present("refused") {
		return "exactly one of handle and refused", ""
	}
	return "", ""
}
