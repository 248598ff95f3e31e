// Package hooks folds the answers of pre-execute hooks into one outcome for a gated call
// (ARCHITECTURE.md, “Pre-execute hooks”).
//
// Before any gated call (an extension tool, a native tool through CallTool, a core/call of
// a plugin's tool) the core asks every live hook, of every Active owner, the caller's own
// included, with hook/evaluate. Run asks them all at once under one batch deadline
// (BatchDeadline, 5 s) and Fold folds what they said:
//
//   - abstain says nothing; DSH's `allow` reaches the core as abstain (the host maps it and
//     logs that once per owner): a hook never approves a call.
//   - deny{reason} stops the call; the outcome is Deny with the reason of the first deny in
//     fold order, naming its plugin.
//   - ask{reason} forces an approval card (even under the auto posture, with no session
//     grant), its reason shown on the card.
//   - annotate{text} adds a note the card shows, attributed to its plugin.
//   - revise{input} replaces the call's input: the last revise in fold order wins
//     (Outcome.Reviser names the hook). The caller validates the revised input against the
//     tool's schema again (a revise that breaks it is denied), asks it once more of every hook
//     but the reviser (core/prehook.go: a deny there denies, a second revise is denied), and
//     the gate decides on the revised input.
//
// Deny outranks ask, which outranks abstain. A hook that errs, answers something malformed
// (an unknown kind, a missing or oversized text, text with characters package inert
// refuses, a revise that is not a JSON object) or does not answer within the batch deadline
// counts as a deny naming its plugin: the fold fails closed. A plugin's text must be one
// line; a builtin answer's (a command hook's reason, kept as its hook wrote it) may hold
// several, still inert and within MaxText.
//
// Fold order is stable: the answers of builtin command hooks first (the seam Fold's
// builtin argument leaves for the builtin tier; command hooks keep their own timeouts and
// are not under BatchDeadline), then plugin hooks by plugin id, then registration order.
package hooks
