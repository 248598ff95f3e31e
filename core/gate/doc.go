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
package gate
