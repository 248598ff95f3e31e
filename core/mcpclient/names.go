package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/registry"
)

// Prefix starts every MCP tool's model-facing name; extension tools may not use it
// (registry.ReservedToolPrefixes).
const Prefix = "mcp_"

// MaxTools bounds the tools one server may bring, the cap of one plugin owner.
const MaxTools = registry.MaxToolsPerOwner

// toolNameRE is the tool-name grammar of the registry.
var toolNameRE = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// Tool is one admitted tool of a server.
type Tool struct {
	// Name is the model-facing name: mcp_<server>_<wire> when that fits the tool-name
	// grammar, else a mapped name (ModelName).
	Name   string `json:"name"`
	Server string `json:"server"`
	// Wire is the name the server gave it, the one tools/call uses.
	Wire        string          `json:"wire"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// OutputSchema is the admitted outputSchema, nil when the tool has none.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// ReadOnly and Destructive are the server's annotations: shown on the card, never
	// lowering the approval.
	ReadOnly    bool `json:"read_only,omitempty"`
	Destructive bool `json:"destructive,omitempty"`

	input, output *registry.InputSchema
}

// HookName is the name Claude Code gives the tool, the one command hooks see and match:
// mcp__<server>__<wire>.
func (t Tool) HookName() string { return "mcp__" + t.Server + "__" + t.Wire }

// ValidateInput validates a call's input against the admitted input schema.
func (t Tool) ValidateInput(input json.RawMessage) error { return t.input.Validate(input) }

// Refusal is a tool of a server that was not admitted, and why.
type Refusal struct {
	Wire   string `json:"wire"`
	Reason string `json:"reason"`
}

func (r Refusal) String() string { return fmt.Sprintf("tool %q: %s", r.Wire, r.Reason) }

// ModelName is the model-facing name of server's tool wire, and whether it is the plain
// form mcp_<server>_<wire>. A wire name that does not fit the tool-name grammar (a `.`, a
// `/`, too long) gets a mapped name: mcp_<server>_, what of the wire name fits (other
// characters as `_`), then `_` and 8 hex digits of the wire name's sha256, cut to 64
// characters in all. "" when not even that fits (a server name is at most 32 characters,
// so it always does).
func ModelName(server, wire string) (string, bool) {
	plain := Prefix + server + "_" + wire
	if toolNameRE().MatchString(plain) {
		return plain, true
	}
	sum := sha256.Sum256([]byte(wire))
	suffix := "_" + hex.EncodeToString(sum[:4])
	var b strings.Builder
	for _, r := range wire {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_'):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	head := Prefix + server + "_" + b.String()
	if room := 64 - len(suffix); len(head) > room {
		head = head[:room]
	}
	name := head + suffix
	if !toolNameRE().MatchString(name) {
		return "", false
	}
	return name, false
}

// Admit decides which of a server's listed tools are offered to the model, by the rules a
// plugin's tools meet (core/registry): the allow-list, at most MaxTools, a name (plain or
// mapped), a description of at most registry.MaxToolDescription inert bytes, and an input
// schema, and an outputSchema when given, that compile under the registry's size and cost
// bounds. Tools whose names fold to the same key (get-env and get_env) are all refused by
// name: which one the model meant cannot be told. The order of tools does not change the
// outcome; admitted tools come back sorted by name.
func Admit(server string, tools []*mcp.Tool, allowed func(wire string) bool) ([]Tool, []Refusal) {
	var out []Tool
	var refused []Refusal
	seen := map[string]bool{}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if seen[t.Name] {
			refused = append(refused, Refusal{Wire: t.Name, Reason: "listed twice; the server must give each tool one name"})
			continue
		}
		seen[t.Name] = true
		if allowed != nil && !allowed(t.Name) {
			continue // not refused: the user left it out
		}
		tool, why := admitOne(server, t)
		if why != "" {
			refused = append(refused, Refusal{Wire: t.Name, Reason: why})
			continue
		}
		out = append(out, tool)
	}
	byKey := map[string][]int{}
	for i, t := range out {
		k := registry.Fold(t.Name)
		byKey[k] = append(byKey[k], i)
	}
	var kept []Tool
	for i, t := range out {
		same := byKey[registry.Fold(t.Name)]
		if len(same) == 1 {
			kept = append(kept, t)
			continue
		}
		var others []string
		for _, j := range same {
			if j != i {
				others = append(others, fmt.Sprintf("%q", out[j].Wire))
			}
		}
		refused = append(refused, Refusal{Wire: t.Wire, Reason: fmt.Sprintf("its name %s is the same as that of %s once case and - are folded; rename one", t.Name, strings.Join(others, ", "))})
	}
	slices.SortFunc(kept, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	if len(kept) > MaxTools {
		for _, t := range kept[MaxTools:] {
			refused = append(refused, Refusal{Wire: t.Wire, Reason: fmt.Sprintf("the server lists more than %d tools; narrow it with tools = [...]", MaxTools)})
		}
		kept = kept[:MaxTools]
	}
	slices.SortFunc(refused, func(a, b Refusal) int { return strings.Compare(a.Wire, b.Wire) })
	return kept, refused
}

// admitOne admits one tool, or says why not.
func admitOne(server string, t *mcp.Tool) (Tool, string) {
	if t.Name == "" || !utf8.ValidString(t.Name) || inert.Check(t.Name) != nil {
		return Tool{}, "the name is empty, not UTF-8 or holds control characters"
	}
	name, _ := ModelName(server, t.Name)
	if name == "" {
		return Tool{}, "no model-facing name fits the tool-name grammar"
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if n := len(desc); n > registry.MaxToolDescription {
		return Tool{}, fmt.Sprintf("the description is %d bytes; the limit is %d", n, registry.MaxToolDescription)
	}
	if !utf8.ValidString(desc) {
		return Tool{}, "the description is not valid UTF-8"
	}
	if err := inert.Check(desc); err != nil {
		return Tool{}, "the description " + err.Error()
	}
	in, err := schemaBytes(t.InputSchema)
	if err != nil || in == nil {
		return Tool{}, "the input schema is missing or not JSON"
	}
	input, err := registry.CompileInputSchema(name, in)
	if err != nil {
		return Tool{}, "input schema: " + err.Error()
	}
	tool := Tool{Name: name, Server: server, Wire: t.Name, Description: desc, InputSchema: in, input: input}
	if t.OutputSchema != nil {
		out, err := schemaBytes(t.OutputSchema)
		if err != nil {
			return Tool{}, "the output schema is not JSON"
		}
		if tool.output, err = registry.CompileInputSchema(name, out); err != nil {
			return Tool{}, "output schema: " + err.Error()
		}
		tool.OutputSchema = out
	}
	if a := t.Annotations; a != nil {
		tool.ReadOnly = a.ReadOnlyHint
		tool.Destructive = a.DestructiveHint != nil && *a.DestructiveHint
	}
	return tool, ""
}

// schemaBytes is a schema the SDK decoded (any: a map, or raw JSON) as JSON bytes.
func schemaBytes(s any) (json.RawMessage, error) {
	if s == nil {
		return nil, nil
	}
	if raw, ok := s.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(s)
}
