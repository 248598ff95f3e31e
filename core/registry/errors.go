package registry

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// Sentinels, matched with errors.Is. ErrRefused and ErrInvalidInput are the errdefs kinds;
// the others are the refusal causes a *Refusal carries.
var (
	// ErrRefused: a registration was not admitted (every *Refusal matches it).
	ErrRefused = errdefs.ErrRefused
	// ErrStaleOwner: the OwnerRef is unknown, from an older generation, has the wrong
	// token, belongs to another tier, or its owner is no longer Activating or Active.
	ErrStaleOwner = errors.New("stale or unknown owner")
	// ErrReservedName: the name belongs to the core (a native tool, a built-in command, a
	// reserved prefix or a name the approval gate treats specially).
	ErrReservedName = errors.New("reserved name")
	// ErrNameTaken: another plugin holds the name.
	ErrNameTaken = errors.New("name taken")
	// ErrLimit: a per-owner or per-host cap is reached.
	ErrLimit = errors.New("limit reached")
	// ErrInvalidSpec: the name, description, hint or schema breaks a rule.
	ErrInvalidSpec = errors.New("invalid registration")
	// ErrUnsupportedKind: the kind is valid on the wire but not built yet.
	ErrUnsupportedKind = errors.New("kind not supported yet")
	// ErrInvalidInput: a call's input does not match the tool's schema.
	ErrInvalidInput = errdefs.ErrInvalidInput
	// ErrInvalidOwner: an owner cannot be begun (bad id for the tier, already live).
	ErrInvalidOwner = errors.New("invalid owner")
	// ErrUnknownTool: no tool has that name or handle (a case of ErrNotAvailable). It is the
	// one definition: the core's look-ups return it too, for a name no plugin claims.
	ErrUnknownTool = errdefs.New(errdefs.ErrNotAvailable, "unknown tool")
)

// Refusal is why a registration was not admitted. Its Error is the text sent back to the
// host as {refused: ...}; it matches ErrRefused and its Cause with errors.Is.
type Refusal struct {
	Kind   string // tool, command, hook, prompt_section
	Name   string
	Cause  error // one of the sentinels above
	Reason string
}

func (r *Refusal) Error() string { return r.Reason }

// Unwrap makes errors.Is match ErrRefused and the cause.
func (r *Refusal) Unwrap() []error { return []error{ErrRefused, r.Cause} }

func refuse(kind, name string, cause error, format string, args ...any) *Refusal {
	return &Refusal{Kind: kind, Name: name, Cause: cause, Reason: fmt.Sprintf(format, args...)}
}

// InputError lists why a call's input does not match the tool's input schema.
type InputError struct {
	Tool       string
	Violations []string // at most MaxViolations
	More       int      // violations not listed
}

func (e *InputError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "input for tool `%s` does not match its schema: %s", e.Tool, strings.Join(e.Violations, "; "))
	if e.More > 0 {
		fmt.Fprintf(&b, " (and %d more)", e.More)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalidInput) true.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }
