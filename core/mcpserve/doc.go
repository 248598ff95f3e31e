// Package mcpserve serves the Manager's live tools and commands to any Model Context
// Protocol client, over stdio or streamable HTTP, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// It is a consumer of core.Manager and of nothing below it (ARCHITECTURE.md, “Package
// map”): every call goes through Manager.CallTool and Manager.RunCommand, so validation,
// approval and the hosts' bounds stay the core's.
//
//   - tools/list is the live catalog: each tool with its input schema and a description
//     prefixed by its origin ("[extension:<plugin>] …"). The Manager's change feed
//     (Manager.Changes) drives notifications/tools/list_changed and
//     notifications/prompts/list_changed; nothing is polled.
//   - tools/call carries the client's cancellation to the call's context (the host gets
//     `$/cancel`, the plugin's exec.signal aborts) and sends notifications/progress every
//     Options.ProgressEvery while the call runs, when the client asked for progress.
//   - Results map to MCP content: text blocks, structuredContent for a structured result,
//     isError for a plugin's error result. The core's refusals (invalid input naming the
//     field, denied, not available, the plugin failed, timed out) are isError results
//     carrying the core's message; a tool the server does not list is the SDK's JSON-RPC
//     error.
//   - Approval: when the gate asks and the client declared elicitation, the core's approval
//     card is sent as a form elicitation offering the terminal prompter's choices (allow
//     once, allow this exact call for the session, allow this tool of this plugin build for
//     the session, deny; a forced card offers once and deny), in the SDK's multi round-trip
//     form with the answer bound to the card's approval key by a MAC (approval.go);
//     otherwise Options.Fallback answers (the CLI's refuses and says which --approve flags
//     approve instead). The posture itself is the Manager's.
//   - Questions: a plugin's question to the person (userQuestions.ask) reaches a client
//     that declared elicitation as a form elicitation (its options an enum field, free text
//     a string field) while the call runs on, parked until the client's retry brings the
//     answer (questions.go); an empty, declined or cancelled form is skipped. A client
//     without elicitation gets no Asker, and the plugin gets NO_PROVIDER.
//   - Annotations: a read-only native tool gets readOnlyHint; an extension tool gets none.
//   - Commands are prompts: prompts/get runs the command with the "input" argument; a
//     submit answer becomes the prompt's user message, success and error answers text.
//   - Logs given to LogSink reach every session as notifications/message at the level
//     the client chose (logging/setLevel).
//
// A host crash fails the calls in flight with an isError result; the list follows the
// replay through the change feed and the server stays up.
package mcpserve
