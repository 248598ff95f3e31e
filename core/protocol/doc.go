// Package protocol is the single source of truth for the JSON-RPC 2.0 protocol spoken
// between the Go core and the JavaScript extension host inside CWX1 frames.
//
// It holds the method table (direction, request or notification, allowed tiers), every
// params and result type, the error codes, the encoders, and two parsers:
//
//   - [ParseHostMessage] reads what a host sent. It is strict: unknown fields are refused
//     at every depth, params must be an object, jsonrpc must be exactly "2.0", ids are
//     unsigned integers, a response carries exactly one of result and error and is checked
//     against the method of the request it answers, and a method must be allowed on the
//     host's tier.
//   - [ParseCoreMessage] reads what the core sent (tests, fake hosts, `cwx protocol check`).
//     Types marked tolerant in the method sheet ignore unknown fields; the rest is strict.
//
// Before any decoding a validating scanner checks the payload itself: object keys are
// matched exactly (case-sensitively), duplicate keys, invalid UTF-8 and nesting deeper
// than [MaxDepth] are refused. encoding/json does none of that, so parsing does not use
// it: the checker walks the scanned values against the shapes and stores what it checked
// straight into the typed value (strings decoded once, fields of type any kept as slices
// of the payload). The scanner reads the payload once to validate it; descending into a
// container re-reads only its range, in a trusted mode that jumps over large values the
// first pass recorded, so a 32 MiB result costs one validating pass and one copy of its
// text, not a tree. The parsed [Message] shares the payload's bytes (Params, Result and
// every json.RawMessage in Value): the caller must not modify the payload afterwards.
//
// The encoders write the envelope by hand and the protocol's own types with a small
// reflection-driven encoder (encode_wire.go) producing the bytes encoding/json would;
// a json.RawMessage is validated by the same scanner (so a frame the host would refuse
// is refused here) and copied once into a buffer sized in advance.
//
// Shapes are derived by reflection from the Go wire types; the same description renders
// nodeshim/jshost/src/protocol.generated.ts (see the generator test), so the JS host and
// the core cannot drift apart. Rules a shape cannot express (registry/register per-kind
// rules, tagged results, the envelope) live in rules.go and are implemented by hand on the
// JS side too; the corpus in testdata/protocol keeps the two in agreement.
//
// The conformance corpus (testdata/protocol, one [Case] per file) is checked by the Go
// tests, by the JS host's own validator (TestCorpusAgreesWithJS) and by
// `cwx protocol check`, which anyone can point at a frame captured from a real host.
//
// Every refusal is a [*ViolationError] that wraps [ErrInvalidMessage].
package protocol
