package natives

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/registry"
)

// Errors, matched with errors.Is. Both are cases of errdefs.ErrDenied: the call is not
// allowed to reach what it names, whoever approved it.
var (
	// ErrNoWorkspace: the call carries no workspace, so it can reach no file.
	ErrNoWorkspace = errdefs.New(errdefs.ErrDenied, "the call has no workspace")
	// ErrOutsideWorkspace: a path leaves the call's workspace (`..`, an absolute path
	// elsewhere, a symbolic link pointing out).
	ErrOutsideWorkspace = errdefs.New(errdefs.ErrDenied, "path is outside the call's workspace")
	// ErrBadSpec: a Tool's Spec cannot be registered (name, schema, eligibility).
	ErrBadSpec = errdefs.New(errdefs.ErrRefused, "native tool not admitted")
)

// Spec describes a native tool to the registry (its name is reserved), the gate (how its
// calls are approved) and whoever lists tools.
type Spec struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema whose top level is an object; the core compiles it once
	// and validates every call's input against it before the gate is asked.
	InputSchema json.RawMessage
	// AutoEligible calls run without an approval card in every posture: the built-in
	// read-only tools, confined to the call's workspace.
	AutoEligible bool
	// Forced calls raise a card every time, under ask and auto alike, and are never
	// remembered for the session; under deny, or with no approver, they are denied.
	// A Spec is AutoEligible, Forced or neither (then a call is approved like an
	// extension tool's: by the posture, a session grant or a person).
	Forced bool
	// ReadOnly says the tool changes nothing; it is shown, not enforced.
	ReadOnly bool
	// Writes says the tool changes the workspace's files (write_file, edit_file): a call
	// an extension asks for through core/call is Forced, never covered by a session grant.
	// A Writes tool that is a Planner also forces a card for a protected path.
	Writes bool
}

// Call is one call of a native tool.
type Call struct {
	// Workspace is the absolute directory the call is confined to; "" reaches no file
	// (ErrNoWorkspace).
	Workspace string
	// Input has been validated against the Spec's InputSchema.
	Input json.RawMessage
}

// Result is what a native tool answers. IsError is a failure the caller (a model) should
// see and may recover from: a missing file, a command that exited non-zero or timed out.
type Result struct {
	Text       string
	IsError    bool
	Structured json.RawMessage
	// Streams is shell's stdout and stderr kept apart, for what needs them apart (the
	// tool_response Claude Code's PostToolUse hooks read); nil for the other natives. Text
	// is what the caller sees; Streams never reaches it.
	Streams *Streams
}

// Streams are a command's stdout and stderr, each as it was written, within the bound the
// command's output has together (MaxShellOutput); Truncated says some was read and not kept.
type Streams struct {
	Stdout, Stderr string
	Truncated      bool
}

// Tool is a native tool: the core's own, or an embedder's. Spec is called once, when the
// tool joins a Set. Run must return when ctx ends; it returns an error only when the call
// did not run as asked (ErrNoWorkspace, ErrOutsideWorkspace, an input it cannot decode,
// ctx's error), and a Result with IsError for a failure of the work itself. Run is called
// concurrently.
type Tool interface {
	Spec() Spec
	Run(ctx context.Context, call Call) (Result, error)
}

// Set is an immutable table of native tools by exact name. A nil *Set is empty.
type Set struct {
	byName map[string]entry
	names  []string // sorted
}

type entry struct {
	tool Tool
	spec Spec
}

var nameRE = lazyre.New(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)

// NewSet returns a Set of tools. Names must be unique, compared case-insensitively, and a
// Spec may not be both AutoEligible and Forced (ErrBadSpec).
func NewSet(tools ...Tool) (*Set, error) {
	return (*Set)(nil).With(tools...)
}

// With returns a new Set holding s's tools and tools (ErrBadSpec as for NewSet).
func (s *Set) With(tools ...Tool) (*Set, error) {
	out := &Set{byName: map[string]entry{}}
	folded := map[string]string{}
	add := func(t Tool) error {
		sp := t.Spec()
		if err := checkSpec(sp); err != nil {
			return err
		}
		if prev, ok := folded[registry.Fold(sp.Name)]; ok {
			return fmt.Errorf("%w: native tool `%s` is registered twice (as `%s`)", ErrBadSpec, sp.Name, prev)
		}
		sp.InputSchema = slices.Clone(sp.InputSchema)
		folded[registry.Fold(sp.Name)] = sp.Name
		out.byName[sp.Name] = entry{tool: t, spec: sp}
		out.names = append(out.names, sp.Name)
		return nil
	}
	for _, n := range s.Names() {
		if err := add(s.byName[n].tool); err != nil {
			return nil, err
		}
	}
	for _, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("%w: a nil Tool", ErrBadSpec)
		}
		if err := add(t); err != nil {
			return nil, err
		}
	}
	slices.Sort(out.names)
	return out, nil
}

func checkSpec(sp Spec) error {
	switch {
	case !nameRE().MatchString(sp.Name):
		return fmt.Errorf("%w: native tool name %q must match %s", ErrBadSpec, sp.Name, nameRE())
	case sp.AutoEligible && sp.Forced:
		return fmt.Errorf("%w: native tool `%s` is both auto-eligible and forced", ErrBadSpec, sp.Name)
	case sp.AutoEligible && sp.Writes:
		return fmt.Errorf("%w: native tool `%s` writes files and cannot be auto-eligible", ErrBadSpec, sp.Name)
	case len(sp.InputSchema) == 0:
		return fmt.Errorf("%w: native tool `%s` has no input schema", ErrBadSpec, sp.Name)
	}
	return nil
}

// Lookup returns the tool called exactly name and its Spec.
func (s *Set) Lookup(name string) (Tool, Spec, bool) {
	if s == nil {
		return nil, Spec{}, false
	}
	e, ok := s.byName[name]
	return e.tool, e.spec, ok
}

// Names returns the tools' names, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.names)
}

// Specs returns the tools' Specs, sorted by name. The caller may not modify their schemas.
func (s *Set) Specs() []Spec {
	if s == nil {
		return nil
	}
	out := make([]Spec, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.byName[n].spec)
	}
	return out
}

// Len is the number of tools.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.names)
}

// BuiltinWith returns the core's own native tools: read_file, list_dir, file_search and
// grep_files (read-only, auto-eligible), write_file and edit_file (approved like an
// extension tool's call, forced for a protected path or through core/call; o names the
// protected paths beyond the built-in list) and shell (forced).
func BuiltinWith(o WriteOptions) *Set {
	s, err := NewSet(ReadFile(), ListDir(), FileSearch(), GrepFiles(), Shell(), WriteFile(o), EditFile(o))
	if err != nil {
		panic(err) // the built-in Specs are constants
	}
	return s
}
