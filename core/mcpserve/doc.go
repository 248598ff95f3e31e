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
//
// # MCP server
//
// `cwx serve --mcp` (`core/cli/serve.go`) serves the live catalog of one Manager to any Model Context
// Protocol client, on stdin/stdout or, with `--http ADDR`, streamable HTTP at `/mcp`. It is built on
// the official Go SDK (`github.com/modelcontextprotocol/go-sdk`); `core/mcpserve` uses nothing below
// `core.Manager`, so validation, approval and the hosts' bounds stay the core's.
//
//   - **The change feed.** `Manager.Changes(ctx)` delivers a `core.Change` (a catalog generation that
//     only grows) after every change of what `Tools` and `Commands` list: activation of an owner with
//     registrations, a registration or withdrawal by an Active owner, revocation, a fault, a host's exit.
//     The registry reports each change through `registry.Options.Changed`, called with its lock held;
//     the feed's own lock is a leaf and its sends never block (each subscriber has one slot holding the
//     newest Change). Nothing polls: a change made in another process reaches the feed through the
//     state watcher's reconcile. The channel closes when ctx ends or the Manager closes.
//   - **Catalog.** Each tool is listed with its input schema and its description prefixed by its origin
//     (`[extension:<plugin>] …`, `[native] …`); each command is a prompt with one argument, `input`. On
//     every Change the server gives the SDK what was added, changed or removed, and the SDK sends
//     `notifications/tools/list_changed` and `notifications/prompts/list_changed`.
//   - **Calls.** `tools/call` is one `Manager.CallTool` under the request's context, which the SDK
//     cancels on `notifications/cancelled` (so the host gets `$/cancel` and the plugin's `exec.signal`
//     aborts). With a progress token, `notifications/progress` is sent every
//     `mcpserve.DefaultProgressEvery` (1 s) while the call runs. A result maps to text content, plus
//     `structuredContent` for a structured result, and `isError` for the plugin's error result. The
//     core's refusals are `isError` results whose text starts with the kind (`invalid input: …` naming
//     the field, `denied: …`, `not available: …`, `the plugin failed: …`, `timed out: …`), terminal
//     escapes removed; a name the server does not list is the SDK's JSON-RPC error.
//   - **Approval.** The Manager's posture decides first (ARCHITECTURE.md, “Approval”). When the gate
//     asks and the client declared elicitation, the card is sent as a form elicitation offering allow
//     once (`allow_once`), allow this exact call for the session (`allow_session`), allow this tool of
//     this plugin build with any input for the session (`allow_tool`, `gate.AllowToolForSession`; the
//     two session grants not for a forced card) and deny, in the SDK's multi
//     round-trip form: the input-required result carries the card and, as its request state, an
//     HMAC-SHA256 of the approval key under a secret of the server process; the client's retry is
//     answered only for a card with the same key. For a client on a protocol version before
//     2026-07-28 the SDK elicits and retries itself. Decline and cancel deny. Without elicitation the
//     call is refused naming the call by its origin and, for a call the posture can approve, the flags
//     that approve it (`--approve auto --approve-extensions`); a forced call gets no flag, only the
//     advice to use a client with elicitation. `--approve auto` never approves extension
//     tools by itself: the Manager then runs with `ask` unless `--approve-extensions` is also given,
//     and `cwx serve` prints the resulting choice on stderr at start. Session grants belong to the
//     Manager, so every session of one `cwx serve --http` shares them.
//   - **Questions.** With a client that declared elicitation, `tools/call` and `prompts/get` pass an
//     Asker (ARCHITECTURE.md, “Questions to the person”): the question becomes a form elicitation (the options an enum
//     field, the person's own text a string field), returned as an input-required result while the
//     call runs on, parked under a random id whose HMAC is the request state; the retry hands the
//     answer to that call, which is cancelled if no retry comes within `mcpserve.DefaultAnswerWithin`
//     (10 min). A choice answers the choice, else text answers the text; an empty form, decline and
//     cancel answer skipped. Without elicitation the Asker is nil and the plugin gets `NO_PROVIDER`.
//   - **HTTP.** The address MUST be loopback unless `--allow-remote` is given, which requires
//     `--tls-cert` and `--tls-key`. Every request MUST carry `Authorization: Bearer <token>`, the token
//     from `CWX_MCP_TOKEN` or 256 random bits printed on stderr at start (401 otherwise), and a request
//     with an `Origin` MUST name the listener's own loopback origin or one given with `--allow-origin`
//     (403 otherwise), which closes DNS rebinding.
//   - **Streams and lifetime.** In stdio mode only the MCP transport writes to stdout; logs go to
//     stderr (`CWX_LOG`) and, at debug and above, to every session as `notifications/message`, which the
//     SDK filters by the level the client set. A host crash fails the calls in flight with an `isError`
//     result and the list follows the replay; the server stays up. Stdin EOF or SIGTERM ends the
//     session, and the tiers are shut down within `supervisor.DefaultKillAfter`; a session whose close
//     waits for a call still busy (validating a large input) is ended with the process (“CLI
//     conventions”, SIGTERM). A client that goes
//     away, even while a call runs whose answer then finds the pipe closed, is a clean end of the
//     session (`Server.Run` returns nil; `cwx serve --mcp` exits 0), not a failure.
package mcpserve
