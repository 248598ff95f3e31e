// Package elicit asks the person for the form an MCP server requests while one of its tools
// runs (elicitation/create in form mode), and answers the server.
//
// The MCP spec keeps such a form flat: an object of primitive fields, each a string (free,
// with a format or length bounds, or a single choice by enum, enumNames or oneOf {const,
// title}), a number or integer (minimum, maximum), a boolean, or an array of strings chosen
// from a list (items.enum or items.anyOf {const, title}, minItems, maxItems). [Answerer] reads
// the requested schema keeping its fields in the order the server wrote them (core/mcpclient
// keeps the bytes the server wrote), asks the call's questions.Asker one question per field,
// converts and checks each answer against that field's schema (asking again, with the reason,
// at most three times), checks the whole answer against the whole schema and then accepts. A
// form it cannot ask (a nested object, an unknown type, more than 32 fields, a schema the
// validator refuses) is declined, with a warning naming the field. "decline" on any question
// declines the form; a skipped question or a failing Asker cancels it; "skip" on an optional
// field leaves it out, so the server's default applies.
//
// An Asker that is a [FormAsker] (`cwx serve --mcp`'s, for a client that declared
// elicitation) is put the whole form at once instead: the requested schema as the server wrote
// it, after the same check that cwx can ask it and that every string of it is inert. Its
// answer is checked (only the form's fields, then the whole schema) and, refused, asked again
// with the reason, at most three times, before the form is declined; decline and cancel pass
// through, and a failing FormAsker cancels.
package elicit
