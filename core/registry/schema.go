package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// errExternalRef is what the refusing loader returns.
var errExternalRef = errors.New("external reference")

// schemaCache shares compiled schemas between registrations of identical bytes (a
// replay after a host restart registers the same schemas again). A compiled schema is
// immutable and safe for concurrent use.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*jsonschema.Schema
}

// maxCachedSchemas bounds the cache; it is emptied when full.
const maxCachedSchemas = 2048

func (c *schemaCache) compile(name string, raw []byte) (*jsonschema.Schema, string) {
	c.mu.Lock()
	s, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return s, ""
	}
	s, why := compileSchema(name, raw)
	if why != "" {
		return nil, why
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedSchemas {
		c.m = map[string]*jsonschema.Schema{}
	}
	c.m[string(raw)] = s
	c.mu.Unlock()
	return s, ""
}

// compileSchema is the one admission of a schema, whoever offers it (a plugin's or a builtin
// module's registration, a native tool's spec): it checks and compiles a tool's input schema
// and bounds what validating one input value can cost (schemaCost). It returns the reason
// for a refusal, or "".
func compileSchema(name string, raw []byte) (*jsonschema.Schema, string) {
	if len(raw) == 0 {
		return nil, fmt.Sprintf("tool `%s` needs an input_schema", name)
	}
	if len(raw) > MaxSchemaBytes {
		return nil, fmt.Sprintf("input schema of tool `%s` is %d bytes; the limit is %d", name, len(raw), MaxSchemaBytes)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Sprintf("input schema of tool `%s` must be a JSON object", name)
	}
	if t := top["type"]; !bytes.Equal(bytes.TrimSpace(t), []byte(`"object"`)) {
		return nil, fmt.Sprintf("input schema of tool `%s` must declare \"type\": \"object\" at its top level", name)
	}
	var external []string
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		external = append(external, u)
		return nil, fmt.Errorf("%w %s", errExternalRef, u)
	}
	const url = "mem:///input_schema.json" // the same for every tool, so compiled schemas can be shared
	if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Sprintf("input schema of tool `%s` is not a valid JSON Schema: %s", name, oneLine(err.Error()))
	}
	s, err := c.Compile(url)
	if len(external) > 0 {
		return nil, fmt.Sprintf("input schema of tool `%s` refers to an external schema (%s); external $ref is not allowed, put the definitions under $defs", name, external[0])
	}
	if err != nil {
		return nil, fmt.Sprintf("input schema of tool `%s` is not a valid JSON Schema: %s", name, compileError(err))
	}
	if _, ce := schemaCost(s); ce != nil {
		return nil, fmt.Sprintf("input schema of tool `%s`: the schema at %s %s", name, ce.pointer, ce.reason)
	}
	return s, ""
}

// maxCompileError bounds compileError's text (every violation, each with its metaschema path).
const maxCompileError = 4096

// compileError is the library's compile error of a schema the metaschema refuses with every
// violation, one per schema location in location order, in the library's own form ("'<loc>'
// does not validate with <metaschema path>: <reason>", which the CLI shortens), joined by
// "; ". The library's Error names the first only. Alternatives the metaschema tried at one
// location (an anyOf) are one violation: the first by metaschema path is kept.
func compileError(err error) string {
	se, ok := errors.AsType[*jsonschema.SchemaError](err)
	if !ok {
		return err.Error()
	}
	ve, ok := se.Err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	byLoc := map[string]*jsonschema.ValidationError{}
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			if cur, seen := byLoc[v.InstanceLocation]; !seen || v.KeywordLocation < cur.KeywordLocation {
				byLoc[v.InstanceLocation] = v // the first alternative, whatever order the library used
			}
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	meta, _, _ := strings.Cut(ve.AbsoluteKeywordLocation, "#")
	locs := slices.Sorted(maps.Keys(byLoc))
	parts := make([]string, 0, len(locs))
	for _, loc := range locs {
		leaf := byLoc[loc]
		parts = append(parts, fmt.Sprintf("'%s' does not validate with %s#%s: %s", loc, meta, leaf.KeywordLocation, strings.Join(strings.Fields(leaf.Message), " ")))
	}
	msg := fmt.Sprintf("jsonschema %s compilation failed: %s", se.SchemaURL, strings.Join(parts, "; "))
	if len(msg) > maxCompileError {
		msg = msg[:maxCompileError-3] + "..."
	}
	return msg
}

// oneLine flattens and bounds a library message for a refusal.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 512 {
		s = s[:509] + "..."
	}
	return s
}

// validate checks input against a compiled schema.
func validate(tool string, s *jsonschema.Schema, input []byte) error {
	v, err := decodeInput(input)
	if errors.Is(err, errTrailing) {
		return &InputError{Tool: tool, Violations: []string{"input holds more than one JSON value"}}
	}
	if errors.Is(err, errTooDeep) {
		return &InputError{Tool: tool, Violations: []string{fmt.Sprintf("input nests objects and arrays more than %d deep, the limit; send a flatter value", MaxInputDepth)}}
	}
	if err != nil {
		return &InputError{Tool: tool, Violations: []string{"input is not valid JSON: " + err.Error()}}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &InputError{Tool: tool, Violations: []string{err.Error()}}
	}
	var leaves []string
	collectLeaves(ve, &leaves)
	e := &InputError{Tool: tool, Violations: leaves}
	if len(leaves) > MaxViolations {
		e.Violations, e.More = leaves[:MaxViolations], len(leaves)-MaxViolations
	}
	return e
}

func collectLeaves(ve *jsonschema.ValidationError, out *[]string) {
	if len(ve.Causes) == 0 {
		loc := ve.InstanceLocation
		if loc == "" {
			loc = "(root)"
		}
		*out = append(*out, loc+": "+ve.Message)
		return
	}
	for _, c := range ve.Causes {
		collectLeaves(c, out)
	}
}
