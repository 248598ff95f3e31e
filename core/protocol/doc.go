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
// The conformance corpus (testdata/protocol, one [Case] per file; a case with an attachment is
// written as raw_base64) is checked by the Go
// tests, by the JS host's own validator (TestCorpusAgreesWithJS) and by
// `cwx protocol check`, which anyone can point at a frame captured from a real host.
//
// Every refusal is a [*ViolationError] that wraps [ErrInvalidMessage].
//
// # Protocol
//
// CWX1 protocol version 1 (`protocol.Version`). The Go types and the method table of this
// package are the source of truth; the headings below describe them.
//
// # Framing
//
// A frame is the four ASCII bytes `CWX1` (`frame.Magic`), a little-endian uint32 payload length
// (header `frame.HeaderSize`, 8 bytes) and the payload: one UTF-8 JSON text holding exactly one
// JSON-RPC 2.0 message. There is no batching and no other framing.
//
// An attachment is raw bytes after the JSON text, in the same payload: one NUL byte (0x00),
// then the bytes, to the payload's end. JSON text never holds a NUL byte, so the first one ends
// the message; the attachment may hold any bytes. Only the success result the core sends to a
// request whose method has `MethodSpec.ResultAttachment` carries one (`net/fetch` and
// `net/read`: a response body's bytes, so a body is neither base64-encoded nor parsed as
// JSON); a NUL byte anywhere else, a
// host's payload included, is a violation. An attachment is never empty: zero bytes are sent as
// none. A late answer (to an id not in flight) is dropped with its attachment. The frame's
// length and `protocol.MaxFrame` cover the JSON text and the attachment together. In Go the
// encoder takes a `protocol.WithAttachment` result and the parsers return `Message.Attachment`;
// the JS host's peer resolves the request with the bytes as `attachment` beside the result's
// fields (`messages.ts`, `Attached`).
//
//   - A payload MUST NOT exceed `protocol.MaxFrame` (32 MiB; it is defined as the framing layer's
//     `frame.MaxPayload`, so the two cannot drift). A decoder MUST check the announced length before allocating; a sender
//     MUST refuse a larger message with a typed error and MUST NOT truncate it. An answer that cannot
//     be framed is still answered: the JS host measures the encoded answer before allocating its frame
//     and sends instead `CodeExecutionFailed` "result of N bytes exceeds the 32 MiB frame limit", so
//     the caller learns at once and the failure is the plugin's.
//   - End of stream exactly on a frame boundary is a clean end (`io.EOF`); inside a frame it is
//     `frame.ErrTruncated`; other bytes than the magic are `frame.ErrBadMagic`; an oversized length is
//     `frame.ErrTooLarge`.
//   - Any framing or validation error is fatal to the channel. The JS host writes the reason to stderr
//     and exits with status 65; the shim kills the runtime on a framing error; the core ends the
//     incarnation on a validation error, which the supervisor counts as a crash.
//
// # Envelope
//
//   - `jsonrpc` MUST be exactly `"2.0"`. The only top-level members are `jsonrpc`, `id`, `method`,
//     `params`, `result` and `error`.
//   - `id` is an unsigned integer no larger than `protocol.MaxUint` (2^53−1, the largest integer
//     JavaScript represents exactly).
//   - A message with `method` carries no `result` or `error`. It is a request when it has an `id`. Each
//     method is either a request or a notification in the table; a message of the other form is
//     invalid.
//   - `params` absent means `{}`; present, it MUST be an object (an array is invalid even where the
//     params type is empty).
//   - A response has an `id`, no `params`, and exactly one of `result` and `error` (`"result": null`
//     counts as present). `error` is `{code, message, data?}` with no other members. A response is
//     checked against the method of the request it answers.
//   - An unknown method is invalid in both directions. A method in the table but not allowed on the
//     host's tier is invalid in the same way, on both sides; the core refuses to send one
//     (`errdefs.ErrNotAllowed`, nothing is written).
//
// # Strictness
//
//   - Everything a host sends is decoded strictly: unknown members are refused at every depth
//     (`protocol.ParseHostMessage`).
//   - The host ignores unknown members in what the core sends only for the types marked tolerant in
//     `core/protocol/shapes.go` (`InitializeParams`, `HostLimits`, `ActivateParams`, `EntryRef`,
//     `DeactivateParams`, `ToolCallParams`, `CommandRunParams`, `RegisterResult`); every other type is
//     strict in both directions (`protocol.ParseCoreMessage`).
//   - An optional member whose value is `null` is absent.
//   - Before any decoding a validating scanner checks the text itself: keys match exactly
//     (case-sensitively), duplicate keys are invalid, invalid UTF-8 is invalid, and nesting deeper than
//     `protocol.MaxDepth` (64) is invalid. `encoding/json` does none of these, so the parsers do not
//     use it. Rules a shape cannot express (per-kind rules of `registry/register`, tagged results) live
//     in `core/protocol/rules.go` and are implemented by hand on the JS side.
//   - The JSON stack was decided by measurement against `github.com/go-json-experiment/json` (the
//     future `encoding/json/v2`; BENCHMARKS.md, “The JSON stack”), and cwx keeps its own readers and
//     writers: the library's RFC 8785 form is byte-identical on 5,011 of 5,013 inputs but takes
//     `1e400` (it writes the largest double, so two inputs share a key) and nesting past 64, and is
//     11–99 % slower; its strict `Unmarshal` holds every textual rule of the corpus but not the
//     protocol's own (required members, a null optional as absent, depth 64, tolerant types) and is
//     faster at 1 KiB, slower at 1 MiB; its `Marshal` is 57–174 % slower. The library is imported
//     only by the tests that measure it (`core/gate/jcs_v2_test.go`, `core/protocol/v2_test.go`);
//     `TestCanonicalizeAgainstV2` fails the day it agrees everywhere, so the question is asked again.
//     `encoding/json/v2` itself is not imported: on Go 1.26 it exists only under `GOEXPERIMENT`.
//     Strings are written by one function, `jsontext.AppendString` (the wire's encoding/json form
//     with U+2028/2029 escaped, the canonical form's JSON.stringify form without);
//     `core/internal/jsjson` writes UTF-16 code units, lone surrogates included, which no UTF-8
//     writer can hold.
//
// Every refusal is a `*protocol.ViolationError` wrapping `protocol.ErrInvalidMessage`.
//
// # Limits
//
// Columns: what, constant, value.
//
//   - payload of one frame: `protocol.MaxFrame`, 32 MiB
//   - requests in flight per direction: `protocol.MaxInflight`, 256
//   - the core's pending calls (plus one slot reserved for the heartbeat): `rpc.MaxPending`, `protocol.MaxInflight`
//   - host requests served at once: `rpc.MaxInbound`, `protocol.MaxInflight`
//   - outbound queue of the core: `rpc.QueueSize`, 128 frames
//   - JSON nesting depth: `protocol.MaxDepth`, 64
//   - largest integer on the wire: `protocol.MaxUint`, 2^53−1
//
// Request ids count from 1 in each incarnation and MUST NOT be reused while in flight; a host that
// reuses one, or sends a request beyond `rpc.MaxInbound`, commits a violation. An answer to an id the
// core never sent is a violation; an answer to a call the core gave up on is dropped and logged.
//
// `$/cancel {id}` always refers to one of the canceller's own outstanding requests: the core uses it
// for requests it sent to the host, the host for requests it sent to the core. Cancelling an id that
// is no longer (or never was) in flight has no effect.
//
// # Error codes
//
// Columns: code, constant, meaning.
//
//   - -32700: `protocol.CodeParseError`, standard JSON-RPC
//   - -32600: `protocol.CodeInvalidRequest`, a request before `host/initialize`
//   - -32601: `protocol.CodeMethodNotFound`, no handler, or not allowed on this tier
//   - -32602: `protocol.CodeInvalidParams`, bad params; an answer too large to send
//   - -32603: `protocol.CodeInternal`, internal error of the answering side
//   - -32000: `protocol.CodeExecutionFailed`, the plugin's code threw or failed
//   - -32001: `protocol.CodeNotAvailable`, no live handle, channel closed
//   - -32002: `protocol.CodeRefused`, refused by policy, a limit or an invalid ticket (`core/call`)
//   - -32003: `protocol.CodeDenied`, a person declined
//   - -32800: `protocol.CodeCancelled`, cancelled by `$/cancel`, or the owner was revoked
//
// # Methods
//
// Tiers: P = plugin, B = builtin. Twenty-three methods; `$/cancel` is sent in both directions.
//
// Columns: methods, direction, kind, tiers, built.
//
//   - `host/initialize`, `host/ping`, `host/shutdown`, `ext/activate`, `ext/deactivate`, `tool/call`, `command/run`: core→host, request, P, B, yes
//   - `hook/evaluate`: core→host, request, P, B, yes (ARCHITECTURE.md, “Pre-execute hooks”)
//   - `harness/run`: core→host, request, B, yes: command hooks (ARCHITECTURE.md, “Command hooks”)
//   - `$/cancel`: both, notification, P, B, yes
//   - `host/hello`, `host/ready`, `ext/faulted`, `log`, `host/busy`: host→core, notification, P, B, yes (`host/busy`: ARCHITECTURE.md, “Lifecycles and numbers”, Blame)
//   - `registry/register`: host→core, request, P, B, tools, commands, hooks and prompt sections
//   - `registry/unregister`: host→core, request, P, B, yes
//   - `core/call`: host→core, request, P, B, yes: native tools only, with a ticket (ARCHITECTURE.md, “Approval”)
//   - `user/ask`: host→core, request, P, B, yes: with the invocation's ticket (ARCHITECTURE.md, “Questions to the person”)
//   - `net/fetch`, `net/write`, `net/read`, `net/close`: host→core, request, P, B, the fetch proxy (below)
//
// The result of `harness/run` is accepted as any JSON object. No method
// carries an approval, by design, and none may be added: approving is the core's decision alone (see
// ARCHITECTURE.md, “Trust model”).
//
// Decisions the types encode:
//
//   - `registry/register` kinds are `tool`, `command`, `hook` and `prompt_section`; any other kind is
//     an invalid frame. A tool needs `spec.input_schema` and takes no `spec.argument_hint`; a command
//     takes no `input_schema`; the other kinds take neither. A `hook`'s `spec.name` is its event,
//     `tools/pre-execute` (the only one; any other is refused), and its `spec.description` is
//     optional. A `prompt_section` keeps the shape of the other
//     kinds: `spec.name` is the section's id and `spec.description` its text (ARCHITECTURE.md, “Prompt sections”).
//   - The answer to `registry/register` is exactly one of `{handle}` and `{refused}`.
//   - `ext/activate` carries the owner, the plugin name, the entry (`{path, sha256}`), the plugin's
//     config (the second argument of its `apply`) and its `data_dir`. Its result is tagged by `status`:
//     `ok` with the registered `tools` and `commands`, or `failed` with a `diagnostic`.
//   - `ext/deactivate` answers `{disposed, leaked}`; anything but `{disposed: true, leaked: []}` is a
//     dirty teardown.
//   - `tool/call` and `command/run` carry the handle, a call id, the input, `deadline_ms` and the
//     optional `workspace`, `ticket`, `session_id`, `agent_id` and `origin_turn_id`. A tool result is
//     `{content: [block], is_error, structured?}`, a block one of `{type: "text", text?}`,
//     `{type: "image" | "audio", data, mime_type}`, `{type: "resource_link", uri, name,
//     mime_type?}` and `{type: "resource", uri, mime_type?, text? | blob?}` (core/content doc.go), with `structured` only for a
//     non-string plain JSON value (a string is sent once, as the text); a command result is tagged by
//     `kind`: `success {text?}`, `error {text}`, `submit {prompt, text?}`.
//
// # The fetch proxy
//
// A host has no network of its own (its sandbox has none); its HTTP goes to the core, which
// judges every hop against the plugin's grants and injects the configured credentials, so a
// token never crosses into the runtime. One exchange:
//
//  1. `net/fetch {owner, request_id, ticket?, method, url, headers: [{name, value}], body?,
//     body_streamed?, max_bytes?}`: the host names the exchange (`request_id`, unique among its
//     owner's open exchanges) and carries the invocation's `ticket` when it fetches inside a tool
//     call or a command. `body` is base64, at most `protocol.NetMaxChunk` bytes decoded: the whole
//     body, or its first chunk when `body_streamed`. `max_bytes` asks for the body's first bytes
//     with the head (below).
//  2. While `net/fetch` is pending, `net/write {owner, request_id, data, end?}` sends the rest of
//     a streamed body, one chunk in flight at a time (the answer is the flow control).
//  3. `net/fetch` is answered with the response head `{status, status_text, headers, url,
//     redirected, eof?}` once it arrives (`url` is the final one; the core follows redirects
//     itself). With `max_bytes`, the head waits at most `pumpLinger` (1 ms; core/fetchproxy
//     doc.go) for the body's first byte and carries what came, gathered as `net/read` gathers
//     it, as its attachment; `eof` says that was all of the body, and the exchange is then over
//     (no `net/read` follows). A HEAD asks for none. This saves the first `net/read`'s round
//     trip; the host holds at most `max_bytes` it did not read, as one read ahead would.
//  4. `net/read {owner, request_id, max_bytes?}` pulls the body: the result is `{eof}` and the
//     bytes, at most `max_bytes` (and `protocol.NetMaxChunk`), are its attachment (“Framing”),
//     none when the chunk is empty. The core reads ahead at most `protocol.NetMaxChunk` bytes
//     per exchange and no further until the host reads, so a slow reader slows its server and
//     never fills the core's memory.
//  5. `net/close {owner, request_id}` ends the exchange at any stage; after `eof` the core has
//     already forgotten it and the close is a no-op. `$/cancel` of a pending `net/fetch`,
//     `net/write` or `net/read` aborts the exchange.
//
// A refusal or a failure answers with `protocol.CodeRefused` (policy and limits),
// `protocol.CodeCancelled` or `protocol.CodeExecutionFailed` (the network), its data
// `{reason, origin?}` (`protocol.NetErrorData`, reasons `protocol.NetReason…`), and a message that
// names the origin (never a path, a query or a header value) and what the user may grant.
//
// # Handshake
//
// After the runtime starts, within `supervisor.DefaultHandshakeTimeout` (30 s) for all of it:
//
//  1. The host sends `host/hello {protocol: {min, max}, host_version, bundle_sha256, runtime: {name,
//     version}, tier, builtin_modules: [{id, sha256}], memory_limit_mib?}`.
//  2. The core checks, in this order, and the first failure is the refusal's reason: the protocol
//     range contains `protocol.Version`; the runtime name is the kind it launched; the tier is the
//     tier it launched; the builtin modules equal the pinned table of `core/bundle` exactly (order
//     free, duplicates counted; the refusal names every missing, extra, changed and duplicated row;
//     ARCHITECTURE.md, “Builtin modules”); the runtime version is the one it probed; `bundle_sha256` is the
//     digest of the bundle it materialized; and `memory_limit_mib` is absent (memory is capped with
//     `RLIMIT_DATA` in the shim, not by the host). A second `host/hello` is a violation.
//  3. The core sends `host/initialize {protocol, fetch_proxy?, limits: {max_frame, max_inflight,
//     activate_deadline_ms, dispose_deadline_ms}}` with `protocol.MaxFrame`, `protocol.MaxInflight`
//     and the host's own bounds for activation (5 s) and disposal (2 s). The host MUST answer `{}`; a
//     host that does not speak the protocol answers `CodeInvalidParams` and exits with status 78.
//  4. The host sends `host/ready`. Only then are the tier's owners activated and the tier reported
//     Ready. Notifications are handled in frame order, so a host that sends `host/ready` and then
//     ends (say, its next request is a violation) has completed the handshake: that end is an exit
//     after ready, told to the owner layer, never a failed start.
//
// The handshake has no test bypass: the conformance tests run it against the real shim. Every refusal
// names its reason and ends with the runtime's stderr tail.
//
// # Source of truth
//
// The Go types and `methodTable` in `core/protocol` are normative. The JS host's
// `nodeshim/jshost/src/protocol.generated.ts` is produced from them by `TestGenerateTypeScript`
// (limits, error codes, the tiered method table, each shape with its strict flag), and that test
// fails when the committed file is stale; regenerate it with `CWX_UPDATE_GOLDEN=1 go test
// ./core/protocol -run TestGenerateTypeScript`. The corpus in `testdata/protocol/*.json` (each file
// `{"direction": "host_to_core"|"core_to_host", "valid": bool, "frame": {...}}`, optionally `"tier"`)
// is parsed by the Go parsers and by the JS host's validator with the same verdicts, and `cwx
// protocol check` applies the same rules to any captured frame.
package protocol
