// Package gate decides whether a call to an extension tool or a native tool may run.
//
// Extension tools always need approval: nothing a plugin says makes one read-only or
// auto-approved. The core composes the approval card (Card) itself. A call is keyed by
// Key: ext:<plugin_id>@<closure sha256>:<tool>:<sha256 of the RFC 8785 canonical input>,
// so a different input, another build of the plugin or another plugin asks again;
// "allow this exact call for the session" (AllowSession) remembers exactly that key. "Allow
// this tool for the session" (AllowToolForSession) remembers the tool key instead, the same
// key without the input hash: tool:ext:<plugin_id>@<closure sha256>:<tool> (ToolKey), so any
// input to that tool of that plugin build is approved; a changed plugin asks again. Tool keys
// are origin-scoped like every key (tool:extcall:... for a core/call, tool:native:<tool> for
// a native), and a Forced card offers neither session grant.
//
// The posture says who answers a Required prompt: ask (the Approver, the default), auto
// (approved without asking; a Forced prompt still asks) or deny (refused without asking).
// ResolvePosture applies the precedence: the --approve flag, then
// [extension_host] approval, then ask.
//
// Native tools (Request.Native) are the core's own or its embedder's. Their calls are keyed
// native:<tool>:<sha256 of the canonical input> and their card says so. A native the core
// marks auto-eligible (the read-only file tools) is Eligible: approved without a card in
// every posture. shell is Forced: a card on every call under ask and auto, never a session
// grant, denied under deny or with no approver. Any other native is Required, like an
// extension tool: write_file and edit_file are, and the core makes a call of theirs Forced
// when its path is protected or it comes through core/call. A file write's card carries
// the change as a unified diff (Request.Diff, Card.Diff), outside the key.
//
// A tool of a plugin that runs from a `cwx plugin dev` session (Request.Dev: its dev receipt,
// so its code is whatever that folder holds now, reviewed by no one) is asked every time,
// like a Forced call: auto (`--approve auto`, `serve --approve-extensions`) does not approve
// it, no session grant covers it and its card offers none (Card.Forced, Card.Dev), deny
// refuses it, and its title says "dev: runs from a `cwx plugin dev` session, reviewed by no
// one" before the containment. The dev session's own calls are approved by that session (the
// author typed them); every other process asks.
//
// Pre-execute hooks (package hooks) run before the gate: a hook's ask makes the caller ask
// with Forced, and the asks and annotations reach the card as Request.Notes, each naming its
// plugin; they never change the key, and a hook never approves.
//
// Approver is the interface an embedder implements. TerminalPrompter is the CLI's
// implementation: it shows the card with its choices named (o once, s this exact call for
// the session, t this tool for the session, d deny) and reads one from a terminal, and
// fails closed with instructions when there is no terminal.
//
// Canonicalize implements RFC 8785 (JSON Canonicalization Scheme) for the key, in one
// pass that writes straight into the result. Every call's input must have a canonical
// form; a call the auto posture approves is only checked for one (no key is hashed).
//
// # Approval
//
// Every card and every refusal names the call by its origin (`gate.Request.Origin`, `Subject`):
// "native tool `shell`", "extension tool `greet` from plugin `hello`", "tool `word_count` of builtin
// module `host:script-tools`", or "native tool `shell` requested by plugin `hello` from its tool
// `greet` (core/call)". cwx calls no MCP server's tools, so there is no such origin. Advice follows
// only where it would work: a refusal of a forced call (`shell`, a hook's ask) says that no posture
// or grant approves it and advises no flag (`gate.Card.Refusal`; the goldens
// `testdata/gate/refusals.golden` and `testdata/cli/serve-refusals.golden` hold every origin).
//
// `core/gate` decides whether a call to an extension tool may run. Extension tools always need
// approval; nothing a plugin says makes one read-only or auto-approved, and the core composes the
// approval card itself (the plugin, the tool, the input, cut at `gate.MaxCardInput` bytes).
//
//   - The approval key is `ext:<plugin_id>@<closure sha256>:<tool>:<sha256 of the RFC 8785 canonical
//     input>` (`gate.Key`), so a different input, another build of the plugin or another plugin asks
//     again.
//   - The card offers, each named (the terminal prompt's letters; the MCP elicitation's values):
//     allow once (`o`, `allow_once`), allow this exact call for the session (`s`, `allow_session`,
//     `gate.AllowSession`: records that exact key), allow `<tool>` from `<plugin>` at this exact
//     version for the session (`t`, `allow_tool`, `gate.AllowToolForSession`: records the tool key
//     `tool:ext:<plugin_id>@<closure sha256>:<tool>`, `gate.ToolKey`, the key without the input
//     hash, so any input to that tool of that build is approved and a changed plugin asks again),
//     and deny (`d`, `deny`, the default). `y` is not an answer: the prompt asks again.
//   - The keys, all in memory only, all origin-scoped (a grant for a model's call never covers a
//     `core/call` and the reverse): `ext:…:<input hash>` and `tool:ext:…:<tool>` for a model's call
//     of an extension tool; `extcall:ext:<caller plugin>@<closure>:<tool>:<input hash>` and
//     `tool:extcall:ext:<caller plugin>@<closure>:<tool>` for a `core/call`; `native:<tool>:<input
//     hash>` and `tool:native:<tool>` for a model's call of a native. A forced card (`shell`, a hook's
//     ask) offers neither session grant and no grant covers it.
//   - The posture says who answers: `ask` (the `Approver`; the default), `auto` (approved without
//     asking, except a prompt the core marks `gate.Forced`) or `deny` (refused without asking).
//     Precedence: the CLI's `--approve` flag, then `[extension_host] approval`, then `ask`. With `ask`
//     and no approver the call fails closed.
//   - Commands need no approval: a person typed them.
package gate
