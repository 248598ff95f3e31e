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
//
// # Registry rules
//
// **Owners.** An owner is one activation of one plugin: `OwnerRef{plugin_id, generation,
// owner_token}`. The generation comes from one registry-wide counter; the token is 64 hex characters
// from `crypto/rand`, given to the host only in `ext/activate`. States: Activating → Active, ending
// Failed (activation failed), Faulted (`ext/faulted`) or Revoked. Only an Activating or Active owner
// whose id, generation and token all match may register anything; everything else is refused "stale
// or unknown owner". A plugin id MUST NOT start with `host:`; builtin owners are exactly
// `host:<module>` with `<module>` matching `^[a-z][a-z0-9-]{0,63}$`; a host may register only on
// behalf of owners that belong to its tier.
//
// **Handles.** One counter for every kind, never reused. The same owner registering a name again
// replaces the old registration under a new handle; unregistering removes exactly that handle, and a
// stale handle is a no-op.
//
// **Folding.** Every name is compared folded (`registry.Fold`): lower-cased, with `-` read as `_`.
// `Echo-Text`, `echo_text` and `ECHO_TEXT` are one name, for tools and commands alike, and the
// reserved names, prefixes and infixes below are matched against the folded form, so `read-file`,
// `exec-command`, `Bash-` and `ext-x` are refused like `read_file`, `exec_command`, `bash_` and
// `ext_`.
//
// **Claims.** A name belongs to who had it first, whatever the timing of activations. Each enabled
// plugin's record in `state.json` keeps its first-trust time (`FirstTrustedAt`, set at the first
// trust and kept by every later one, after an update or an untrust) and its claims: the tools and
// commands it registered at its last successful activation (`Record.Claims`). The Manager gives the
// registry this claim table in every Reconcile before any tier starts (`Registry.SetClaims`); a
// successful activation makes what the owner registered its plugin's claims and persists them.
// Plugins rank by first trust, then by plugin id. A registration of name N by plugin P is:
//
//  1. refused "`N` belongs to plugin `Q`" when enabled plugins claim N and the best-ranked of them
//     is Q ≠ P (a claimant outranks any non-claimant);
//  2. otherwise, when N is registered by another plugin's owner that is Active, refused the same way
//     naming that plugin: an established plugin is never failed because of a newcomer;
//  3. otherwise, when N is registered by another owner still activating, admitted if P claims N or
//     outranks it, and that owner is then Failed with the same reason (its host undoes it); refused
//     if not.
//
// A failed activation leaves the claims of the last success, so the names stay the plugin's and a
// call to one of them says whose it is and why it is not active. Between two plugins that neither
// claim a name, the earlier first trust wins only while both are activating; once one is Active it
// is established.
//
// **Tools.**
//
//   - Name `^[A-Za-z][A-Za-z0-9_-]{0,63}$`; the prefixes in `registry.ReservedToolPrefixes` (`mcp_`,
//     `ext_`) are reserved.
//   - Refused, compared folded, when the name is a native tool's (the Manager gives the registry the
//     names of its native tools: "collides with the built-in tool"), is one of
//     `registry.NativeToolNames` (the names reserved for the core's tools and the agent machinery; with
//     no native behind it the refusal says "a reserved name"), starts with one of
//     `registry.SpecialToolPrefixes` or contains one of `registry.SpecialToolInfixes` (names the
//     approval policy classifies by name: read, list, fetch, shell, write, agent, MCP), or belongs to
//     another plugin (ARCHITECTURE.md, “Registry rules”, Claims).
//   - Description at most `registry.MaxToolDescription` (4096) bytes; input schema at most
//     `registry.MaxSchemaBytes` (65536) bytes, with `"type": "object"`, compiled once at registration
//     as JSON Schema with no loader for external references.
//   - **Validation cost.** Every input schema, wherever it comes from (a plugin's or a builtin
//     module's registration, a script tool, a native's spec), passes one admission
//     (`registry.compileSchema`), which bounds what validating one input value can cost
//     (`registry.schemaCost`, `core/registry/cost.go`): the number of times the validator may apply a
//     (sub)schema to any single value, counted over the compiled schema graph for every nesting depth
//     down to `registry.MaxInputDepth` (64, the wire's and the gate's bound). Applications to the same
//     value (`$ref`, `$dynamicRef`, `$recursiveRef`, `allOf`, `anyOf`, `oneOf`, `not`,
//     `if`/`then`/`else`, `dependentSchemas`, draft-07 `dependencies`) add up; applications to the
//     members and items (`properties`, `patternProperties`, `additionalProperties`,
//     `unevaluatedProperties`, `propertyNames`, `prefixItems`, `items`, `additionalItems`, `contains`,
//     `unevaluatedItems`) step one depth down, the member names told apart (a member named `k` gets
//     `properties.k` and the rest, so a union whose branches recurse through different members is not
//     counted as all branches at once; past 64 names they are merged, which only coarsens the bound)
//     and a `$dynamicRef` counted as every schema with its anchor. A cycle through items or
//     properties thus costs its same-value fan-out to the power of the depth. A schema whose bound is
//     over `registry.MaxSchemaCost` (1000 evaluations per value) is refused, the refusal naming the
//     JSON pointer of the schema where the work multiplies and saying to apply each definition once
//     per value; a schema that applies itself to the same value, and one whose bound takes more than
//     `maxCostSteps` steps to work out, are refused too. An allOf of two `$ref`s to an array whose
//     items point back (2^depth) and a 30-level DAG of such allOfs (2^30) are refused; JSON value
//     trees, ASTs and file trees cost under ten per value. `FuzzSchemaCost` checks the bound against
//     the validator itself (an evaluation counter on every schema); `TestRepositorySchemasAdmitted`
//     admits every schema literal under `testdata/` and `examples/`.
//   - A call's input nested deeper than `registry.MaxInputDepth` is refused before validation
//     ("input nests objects and arrays more than 64 deep, the limit"), so a validation costs at most
//     `MaxSchemaCost` evaluations per value of the input.
//   - At most `registry.MaxToolsPerOwner` (128) per owner and `registry.MaxToolsPerHost` (1024) per
//     host.
//   - Each call's input is checked against the compiled schema first: an invalid input is never shown
//     for approval and never reaches the host; at most `registry.MaxViolations` (5) violations are
//     reported.
//
// **Commands.**
//
//   - Name `^[a-z][a-z0-9_-]{0,63}$`; refused when it is the name or an alias of a built-in command
//     (`registry.BuiltinCommandNames`, `reload` among them, plus what an embedder adds), compared folded, or it belongs to
//     another plugin (ARCHITECTURE.md, “Registry rules”, Claims).
//   - Description non-empty, at most `registry.MaxCommandDescription` (1024) bytes; argument hint at
//     most `registry.MaxArgumentHint` (256) bytes; both single-line without control characters.
//   - At most `registry.MaxCommandsPerOwner` (64) per owner and `registry.MaxCommandsPerHost` (256) per
//     host. Tools and commands are separate namespaces.
//   - Results: success and error text is cut at `core.MaxCommandText` (64 KiB) after terminal escapes
//     are stripped; a submit prompt that is empty or over `core.MaxSubmitPrompt` (128 KiB) is refused,
//     never cut.
//
// **Hooks.**
//
//   - Event `tools/pre-execute` only (`registry.HookEvent`); description optional, one line, at most
//     `registry.MaxHookDescription` (1024) bytes. A hook has no name to claim or clash over: every
//     registration is one more hook.
//   - At most `registry.MaxHooksPerOwner` (128) per owner and `registry.MaxHooksPerHost` (1024) per
//     host. `Registry.Hooks` lists those of Active owners by plugin id, then handle (registration
//     order: the JS host sends an owner's hook registrations one after another).
//
// The registry is bookkeeping only: it spawns nothing and talks to no host.
//
// # Prompt sections
//
// A prompt section is text a plugin contributes to the agent's prompt: `ctx.prompt.registerSection({id,
// text})`, or DSH's `ctx.systemPrompt.section({name, text})` (`content` for `text` too) onto the same
// registration. It is an owned registration like a tool: the effect that made it withdraws it, and
// it ends with its owner.
//
//   - Id with the command-name grammar `^[a-z][a-z0-9_-]{0,63}$`, scoped to its owner: two plugins may
//     use one id, and the same owner registering an id again replaces it under a new handle. A
//     section is no claim.
//   - Text non-empty, valid UTF-8, no control characters but newline and tab and none of the
//     characters `core/inert` refuses, at most `registry.MaxSectionText` (8 KiB).
//   - At most `registry.MaxSectionsPerOwner` (16) per owner, and `registry.MaxSectionBlock` (64 KiB)
//     of text over every live section together: a registration that would pass it is refused.
//   - `Manager.PromptSections()` is the snapshot of Active owners' sections, sorted by plugin id,
//     then id. Each is attributed (`plugin`, `id`) and wrapped: a line naming the section and its
//     plugin as plugin-authored, every line of the text quoted with `> `, and an end line, so the
//     text can neither pose as system text nor close its own frame. `core.PromptBlock` joins them:
//     an embedder delivers the block as a user-role message, never as the system prompt, and a
//     plugin never replaces the system prompt or reaches another session. `cwx prompt show
//     [--json]` prints the block.
package registry
