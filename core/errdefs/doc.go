// Package errdefs is the one taxonomy of the core's errors: a small set of kinds, each
// defined once, that every layer wraps (with %w) and every caller matches with errors.Is.
// The packages that return a kind re-export it under their own name (core.ErrTimeout,
// rpc.ErrTimeout and errdefs.ErrTimeout are one value), so matching never depends on which
// layer an error passed through. The rules this package implements are under “Errors”
// below.
//
// # The kinds
//
//	kind                returned by                    meaning
//	ErrNotAvailable     core, supervisor, rpc          no live name, a stale owner, a host down,
//	                                                   unresponsive or stopped
//	  ErrBusy           rpc                            every request slot taken (a case of NotAvailable)
//	  ErrHostExited     rpc, core                      the incarnation ended under the call (a case
//	                                                   of NotAvailable); wraps why
//	ErrTimeout          rpc                            the call's deadline passed
//	ErrCancelled        rpc, core                      the caller cancelled, or the owner was revoked
//	ErrInvalidInput     registry, core                 the input does not match the tool's schema
//	ErrDenied           gate, core                     approval refused
//	ErrExecutionFailed  core (*core.ExecutionError)    the plugin's code failed
//	ErrViolation        rpc, protocol                  a message broke the protocol
//	ErrNotAllowed       rpc, protocol                  a method not allowed in that direction or tier
//	ErrTooLarge         shared/frame, rpc              over the frame limit (frame.MaxPayload)
//	ErrRefused          registry, plugins              a registration or a package not admitted
//	ErrCorrupt          plugins                        the state file does not parse (never reset)
//
// A package may refine a kind with its own sentinels, made with [New] so they stay cases
// of it: protocol.ErrInvalidMessage is a case of ErrViolation, and the registry's refusal
// causes (registry.ErrNameTaken, ...) travel inside a *registry.Refusal that matches
// ErrRefused. Errors that describe one package's inputs (config, plugins' receipts, the
// runtime lookup) stay that package's sentinels; they are not kinds.
//
// ErrTooLarge is the framing package's own sentinel (frame.ErrTooLarge): shared code is
// compiled by the shim too and may not import the core, so the single definition lives at
// the lowest layer that needs it and this package names the same value.
//
// # Causes are kept
//
// An error keeps what caused it: a protocol violation, the runtime's exit report
// (*shared.ExitError, reachable with errors.As), a broken stream. Layers add context with
// fmt.Errorf("...: %w", err), or with [Newf] and [WithText] where a message has to stay as
// it was; they never turn a cause into a string. A tool call cut short by a host that broke
// the protocol therefore matches ErrHostExited, ErrNotAvailable and ErrViolation at once.
//
// # Translated at process edges only
//
// Kinds are translated where an error crosses a process boundary and nowhere else:
//
//   - host to core: core/rpc maps JSON-RPC error codes onto kinds (rpc.RemoteError), and
//     the core's answers to host requests carry a protocol.RPCError with the code;
//   - shim to core: shared.Channel turns the shim's exit report into a *shared.ExitError
//     (shared.ErrRuntimeExited), and framing errors keep their frame sentinels;
//   - core to the user: core/cli maps each kind to its exit status (core/cli's exit.go and
//     manager.go hold that table) and adds the advice that names cwx commands (advice.go
//     maps a kind or a typed error, such as *core.NotLiveError, to its advice). Library
//     messages say what happened and what to do in library terms; they never name a CLI
//     command.
//
// # Errors
//
// The kinds above, in short:
//
// Columns: kind, meaning.
//
//   - `ErrNotAvailable`: no live name, a stale owner, a host down, unresponsive or stopped
//   - `ErrBusy`, `ErrHostExited`: cases of `ErrNotAvailable`: every slot taken; the incarnation ended under the call
//   - `ErrTimeout`, `ErrCancelled`: the deadline passed; the caller cancelled or the owner was revoked
//   - `ErrInvalidInput`, `ErrDenied`: the input does not match the schema; approval refused (the host saw nothing)
//   - `ErrExecutionFailed`: the plugin's code failed (`*core.ExecutionError` carries its message)
//   - `ErrViolation`, `ErrNotAllowed`: a message broke the protocol; a method not allowed in that direction or tier
//   - `ErrTooLarge`: over the frame limit (the same value as `frame.ErrTooLarge`)
//   - `ErrRefused`: a registration or a package not admitted
//   - `ErrCorrupt`: the state file cannot be trusted (does not parse, too large, not a regular file, a record cwx could not have written; reported with its path, never reset; exit 3), or a cache file (removed and rebuilt)
//
// Rules:
//
//   - Each kind is defined once. `core`, `core/rpc` and the other packages that return a kind re-export
//     the same value under their own name (`core.ErrTimeout` is `errdefs.ErrTimeout`), so matching with
//     `errors.Is` never depends on the layer an error passed through.
//   - Causes are kept: layers wrap with `%w` and never flatten an error into a string. A call cut short
//     by a host that broke the protocol matches `ErrHostExited`, `ErrNotAvailable` and `ErrViolation`
//     at once, and the runtime's exit report is reachable with `errors.As`.
//   - Kinds are translated only at process edges: JSON-RPC error codes into kinds in `core/rpc`, the
//     shim's exit report into an exit error in `shared`, kinds into exit codes in `core/cli`.
//   - Library errors say what happened. Advice that names a `cwx` command is added by `core/cli` alone,
//     as is the mapping of kinds to exit codes (core/cli doc.go, “CLI conventions”).
//   - A plugin's failure is its own. `Manager.Reconcile` joins, besides a tier that could not start,
//     one `*core.PluginError{Plugin, State, Reason, Kind}` per desired plugin that is failed or faulted
//     after it, or whose bytes no longer match its receipt (Kind `ErrExecutionFailed`, `ErrInvalidInput`
//     for a refused config table, `ErrRefused`); `core.PluginErrors` splits them from the rest, and
//     every caller that is not a listing of plugins ignores them. `Manager.Owners` lists every owner
//     with its state, reason and activation time.
package errdefs
