// Package registry is the core's record of who owns what in the extension hosts.
//
// An owner is one activation of one plugin: {plugin_id, generation, owner_token}. The
// generation comes from one registry-wide counter and the token is 64 hex characters
// from crypto/rand, handed to the host only in ext/activate. Owners move through
// Activating → Active, and end Failed (activation failed), Faulted (ext/faulted),
// Revoked (trust withdrawn, disabled, reconfigured or the host went away). Only an
// Activating or Active owner whose plugin id, generation and token all match exactly may
// register anything; everything else is refused "stale or unknown owner". Ids are bound
// to tiers: builtin owners are exactly host:<module>, plugin ids never start with host:,
// and a host registers only for owners of its own tier.
//
// Registrations (tools and commands) get handles from a single counter shared by all kinds
// that is never reused. Admission applies every rule of ARCHITECTURE.md, “Registry rules”:
// name grammar, reserved prefixes, the native (Options.NativeTools: "collides with the
// built-in tool"), reserved (NativeToolNames: "a reserved name") and specially-treated tool
// names and the built-in command names (literals here, plus what an embedder adds), every
// name compared folded (Fold: lower case, `-` read as `_`), description, hint and schema
// sizes, and per-owner and per-host caps. Who a name belongs to is decided by the claim table
// (SetClaims: each enabled plugin's first trust and the names of its last successful
// activation, which Activate records): the best-ranked claimant; else an Active holder, never
// failed for a newcomer; else, between owners still activating, the earlier first trust, whose
// registration fails the other (Admit returns it). A tool's input schema is compiled once, at
// registration, with no loader for external references, and every call's input is validated
// against it (at most MaxViolations reported). That compilation (compileSchema) is the one
// admission of every schema, a native's included (CompileInputSchema): it bounds how often the
// validator may apply a subschema to any one value of an input nested at most MaxInputDepth
// deep (schemaCost, cost.go) and refuses a schema over MaxSchemaCost, naming where the work
// multiplies; the decoder refuses deeper inputs before validation.
// The input is parsed in one pass into the tree encoding/json with UseNumber would build (a
// large text argument is found with byte searches and copied once), so validating a 1 MiB
// input costs well under a millisecond plus what the schema itself checks. Re-registering a
// name by the same owner replaces it under a new handle; unregistering removes exactly that
// handle, and a stale one is a no-op. A hook names its event (HookEvent, the only one) and
// has no name to clash over: each registration is one more hook, at most MaxHooksPerOwner per
// owner and MaxHooksPerHost per tier, listed by Hooks in the order they are folded (plugin
// id, then handle).
//
// A prompt section (checkSection, placeSectionLocked) has an id with the command-name grammar,
// scoped to its owner, and text of at most MaxSectionText with no control characters but
// newline and tab; at most MaxSectionsPerOwner per owner and MaxSectionBlock of text over
// every live section. It is no claim; PromptSections lists Active owners' sections sorted by
// plugin id, then id.
//
// A call looks its tool or command up once (LookupTool, LookupCommand): the Target it gets
// is a snapshot of the handle, the owner and its tier, the other Active owners of the tier
// and the compiled schema, and the input is validated against that snapshot, so one call
// takes the registry's lock once. The registry keeps the one record of each owner's state
// (State); its users keep no copy of it.
//
// The registry is pure bookkeeping: it spawns nothing and talks to no host. It is safe
// for concurrent use.
package registry
