// Package tickets holds the core's capability tickets: opaque strings the core hands a
// host with a request, each indexing a row only the core keeps, so that what the host may
// ask back is decided by the core's row and never by what the host claims
// (ARCHITECTURE.md, “Trust model”).
//
// Two kinds exist. Invocation: minted when the core sends `tool/call`, it lets the tool's
// code ask the core for `core/call`, and the person a question (`user/ask`), while the call
// is in flight. Command: minted when the core sends `command/run`, valid for `user/ask`
// only (RedeemQuestion); Redeem never admits it for `core/call`. Look checks either kind as
// RedeemQuestion does without spending a use: the fetch proxy's `net/fetch` ties a request to
// its invocation this way (a plugin may poll a service far more often than it calls the core). A row records the kind,
// the tier, the host generation, the whole owner (plugin, generation, token), the method
// it authorises, the target (the invocation's call id and tool), an expiry (TTL, 24 h: the
// invocation's own deadline bounds its life; the expiry is a backstop) and a use budget
// (Uses, 50: one use per core/call).
//
// Redeem checks every field of a presentation against the row under the table's one lock
// and refuses an unknown, expired, exhausted, wrong-kind, wrong-owner, wrong-tier,
// wrong-generation or wrong-method ticket with the same ErrRefused, which never says what
// mismatched. An invalid presentation is a strike against the presenting host (tier and
// generation); the Burst-th strike within BurstWindow makes Redeem's error also match
// ErrViolation, and the caller ends that host. A valid ticket merely out of uses is
// refused without a strike.
//
// A ticket is revoked when its invocation ends (Revoke), when its owner is revoked
// (RevokeOwner) and when its host exits (RevokeHost). Tickets are never persisted, and a
// Ticket's string forms (String, GoString, every fmt verb, JSON) are redacted; Reveal is
// the one way to the secret, for the frame that carries it to the host. The clock is
// injected (Options.Now) so expiry and the burst window are tested without sleeping.
//
// # core/call and capability tickets
//
// A tool may ask the core to run one of the core's own (native) tools while its `tool/call` is in
// flight. The core mints a capability ticket (`core/tickets`) with every `tool/call`: 256 random
// bits, opaque, indexing a row only the core keeps — kind `Invocation`, tier, host generation, the
// whole owner (plugin, generation, token), the method `core/call`, the target (call id and tool),
// expiry `tickets.TTL` and `tickets.Uses` uses. The JS host keeps the ticket in a closure behind
// `exec.core.call(name, input?, {signal?})` (`src/shims/core.ts`); `exec.core` exists only when the
// call carried one, and the ticket is on no property of `exec`, `exec.core` or any object handed to
// plugin code (within one shared process this is not a wall: ARCHITECTURE.md, “Trust model”).
//
// `core/call {owner, ticket, name, input}` is served in this order:
//
//  1. **Redeem.** Every field of the row is checked against what the core knows of the request (the
//     host's tier and generation) and what it states (owner, method), under the table's one lock.
//     Unknown, expired, exhausted, wrong-owner, wrong-tier, wrong-generation and wrong-method tickets
//     are refused -32002 with one message that never says which field failed. Eight invalid
//     presentations within a minute from one host end it as a protocol violation (a valid ticket out
//     of uses does not count). Tickets are revoked when the invocation ends (answer, deadline,
//     cancel), when the owner ends and when the host exits; they are never logged or persisted (every
//     string form of `tickets.Ticket` is redacted).
//  2. **Refuse** (-32002), before the gate is asked: any extension tool, the caller's own included
//     (compared ASCII case-insensitively with `-` and `_` folded), `mcp_*`, names that change what is
//     installed or scheduled, and any name not exactly in the native table.
//  3. **Validate** the input against the native tool's schema (-32602).
//  4. **Caps.** `core.MaxCoreCalls` per invocation (the 51st is refused), `core.MaxConcurrentCoreCalls`
//     at once (a further call waits for a slot), one approval card at a time per invocation.
//  5. **Gate.** Auto-eligible natives run without a card; a forced one (`shell`) raises a card in
//     every posture, never takes a session grant and is denied under `deny` or with no approver; an
//     embedder's native follows the eligibility it was registered with. The card is composed by the
//     core from the ticket's row: "Requested by `extension:<plugin>` from inside its tool `<tool>`
//     (core/call): core tool `<name>`". Keys are origin-scoped, `extcall:ext:<plugin>@<closure>:
//     <tool>:<input hash>` (`gate.CallerKey`), so a grant for a direct call never covers an
//     extension's and the reverse. Denied → -32003. While a card waits, the invocation's `tool/call`
//     deadline stands still (it is measured by the core, not by `rpc`), so a person taking a minute
//     does not time the tool out. The host's `$/cancel` of a pending `core/call` withdraws its card:
//     recorded cancelled, never decided for the person. A `core/call` still pending when its
//     invocation ends is cancelled the same way, and the end waits for it (at most
//     `rpc.CancelGrace`) so that its receipt is in the result.
//  6. **Run** the native in the call's workspace; a path outside it is refused -32002.
//
// Each `core/call` leaves a receipt (name, decision, status, bytes) in the tool result
// (`ToolResult.CoreCalls`, `core_calls` in `cwx tool call --json`).
package tickets
