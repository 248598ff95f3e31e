// Package questions checks the questions a plugin asks the person while one of its tools or
// commands runs, and the answers the embedder's [Asker] gives: it knows nothing of tickets
// or invocations. The core's call path redeems the ticket, keeps one question or approval
// card of an invocation on screen at a time and stops the invocation's deadline while one
// waits; then [Check] bounds the question, [Put] asks it and [Reply] checks the answer
// against it before it goes on the wire.
//
// # Questions to the person
//
// While one of its tools or commands runs, a plugin may ask the person a question: DSH's
// `ctx.userQuestions.ask(question)` (`src/shims/questions.ts`), where `question` is a string or
// `{question, options?: [label | {label, description?}], allowText?}`. The host sends `user/ask
// {owner, ticket, question: {text, options?, allow_text?}}` with the running invocation's ticket,
// kept in an async scope handed to no plugin code (in the shared process not a wall: ARCHITECTURE.md, “Trust model”); outside a tool or command of the asking plugin
// there is none and the host refuses. `wait`, `timeout`, `timeoutMs` and `deadline` are refused by
// name: a question waits for the person, untimed.
//
//   - Tickets: a `tool/call`'s `Invocation` ticket serves `core/call` and `user/ask`; a `command/run`
//     now carries a `Command` ticket, valid for `user/ask` only (`tickets.RedeemQuestion`). Each
//     question spends one use; the ticket's host, owner and liveness are checked as for `core/call`,
//     and a question after its invocation ended is refused -32002 ("only during a live invocation of
//     its own tool or command").
//   - The question is checked: text non-empty, at most [MaxText] (4096) bytes; at most
//     [MaxChoice] (16) options with distinct non-empty labels; labels and descriptions at
//     most 1024 bytes; everything valid UTF-8 without the characters `core/inert` refuses (-32602
//     otherwise). With no options the person answers in their own words.
//   - The call's `CallOptions.Asker` answers (like the `Approver`), told the plugin, whether a tool or
//     a command asks, and its name. The CLI's asker asks on the terminal (`[n]` picks an option, a
//     line of text is the person's own answer when allowed, an empty line or end of input skips); with
//     no terminal, or no Asker at all, the answer is the typed error `NO_PROVIDER` (-32002 with data
//     `{"code": "NO_PROVIDER"}`; `QuestionError.code` in the plugin). Questions and approval cards of
//     one invocation are shown one at a time, and the invocation's deadline stands still while one
//     waits.
//   - The answer is typed: `{kind: "choice", choice}` (one of the labels, checked), `{kind: "text",
//     text}` (at most 16 KiB) or `{kind: "skipped"}`.
package questions
