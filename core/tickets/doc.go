// Package tickets holds the core's capability tickets: opaque strings the core hands a
// host with a request, each indexing a row only the core keeps, so that what the host may
// ask back is decided by the core's row and never by what the host claims
// (ARCHITECTURE.md, “Trust model”).
//
// Two kinds exist. Invocation: minted when the core sends `tool/call`, it lets the tool's
// code ask the core for `core/call`, and the person a question (`user/ask`), while the call
// is in flight. Command: minted when the core sends `command/run`, valid for `user/ask`
// only (RedeemQuestion); Redeem never admits it for `core/call`. A row records the kind,
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
package tickets
