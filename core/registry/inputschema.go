package registry

import (
	"encoding/json"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// InputSchema is a tool's compiled input schema kept outside the registry's tables: a
// native tool's, which the core validates a call against before the gate is asked.
type InputSchema struct {
	tool string
	s    *jsonschema.Schema
}

// CompileInputSchema checks and compiles a tool's input schema by the rules a registration
// meets (an object at the top level, at most MaxSchemaBytes, no external $ref, at most
// MaxSchemaCost evaluations per input value). A schema that breaks them is an error matching
// errdefs.ErrRefused.
func CompileInputSchema(tool string, raw []byte) (*InputSchema, error) {
	s, reason := compileSchema(tool, raw)
	if reason != "" {
		return nil, errdefs.New(errdefs.ErrRefused, reason)
	}
	return &InputSchema{tool: tool, s: s}, nil
}

// Validate validates input: nil, or an *InputError (ErrInvalidInput).
func (s *InputSchema) Validate(input json.RawMessage) error { return validate(s.tool, s.s, input) }
