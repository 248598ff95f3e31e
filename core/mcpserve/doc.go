// Package mcpserve serves the Manager's live tools and commands, and what its configured
// MCP servers offer, to any Model Context Protocol client, over stdio or streamable HTTP,
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// It is a consumer of core.Manager and of nothing below it (ARCHITECTURE.md, “Package
// map”): every call goes through Manager.CallTool and Manager.RunCommand, and a server's
// prompts and resources through Manager.MCP, so validation, approval and the hosts' bounds
// stay the core's.
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
//     answer (questions.go); an empty, declined or cancelled form is skipped. An MCP
//     server's elicitation during its tool's call reaches such a client as ONE form
//     elicitation, the server's requested schema passed through as it wrote it (core/elicit
//     checks the answer against it, and asks again with the reason, before it goes back to
//     the server). A client without elicitation gets no Asker, and the plugin gets
//     NO_PROVIDER (an MCP server, a decline).
//   - Rounds: a client on a protocol version before multi round-trip is asked each input
//     request by elicitation/create; the SDK answers only a call's first round by itself,
//     so rounds.go asks the later ones (an approval, then a question or a server's form).
//   - The gateway (gateway.go): the MCP servers' tools are the Manager's (mcp_<server>_<tool>,
//     through the gate: hooks, approval, the content policy); each running server's prompts
//     are prompts mcp_<server>_<prompt> beside the commands, its resources and resource
//     templates keep their URIs. A name a command holds, or that two servers' prompts fold
//     to, and a URI two servers offer, are served for none of them, with a warning.
//     prompts/get and resources/read are relayed to the server that listed them, logged and
//     under the content policy, neither hooked nor gated; so are completion/complete and
//     resources/subscribe (relay.go), and the server's resource updates come back to the
//     sessions subscribed. The first tools/list starts the
//     servers the catalog knows no tools of, the first prompts/list or resources/list every
//     server not started yet, waiting at most Options.StartWait; a server's start, its
//     tools/list_changed and its end reach the change feed and so the client.
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
//   - **Gateway.** The configured MCP servers (config.toml's `[mcp.servers.<name>]`, trusted
//     plugin and file servers) are served beside the plugins: their tools are the Manager's,
//     named `mcp_<server>_<tool>` and called through the same gate (pre-execute and command
//     hooks, which see `mcp__<server>__<tool>`, approval, the content policy); a running
//     server's prompts are prompts `mcp_<server>_<prompt>` (a mapped name as a tool's when that
//     does not fit) with its arguments, and its resources and resource templates keep their
//     URIs. A prompt name a command holds or that two servers' prompts fold to, and a URI two
//     servers offer, are served for none of them, with a warning. `prompts/get` and
//     `resources/read` are relayed to the server that listed the name (`MCPServers.GetPrompt`,
//     `MCPServers.ReadResource`: started if it is not, under its `timeout_s` and
//     `max_result_bytes`, the content policy, logged; neither hooked nor gated, as neither is a
//     model's tool call). Listing starts nothing a listing does not need: the client's first
//     `tools/list` starts the servers whose tools the catalog does not know, its first
//     `prompts/list` or `resources/list` every server not yet started, each waiting at most
//     `mcpserve.DefaultStartWait` (10 s), later arrivals coming by `list_changed`. A server's
//     start, its `notifications/tools/list_changed` and its end reach the change feed (the
//     core's `mcpclient.Options.ToolsChanged`), and every sync lists the running servers'
//     prompts and resources again, so the client gets `list_changed` for all three; a
//     server's own prompts or resources `list_changed` reaches the feed the same way.
//     `completion/complete` of a served prompt's argument (`ref/prompt`) or a served
//     template's (`ref/resource`) goes to its server (`MCPServers.Complete`; a server that
//     announced no completions, a command and a name no server serves complete to nothing;
//     values stripped of terminal escapes, at most 100). `resources/subscribe` of a served
//     resource, or of a URI a served template matches, subscribes at its server once for
//     every session that asks (`MCPServers.Subscribe`; kept by `core/mcpclient` across the
//     server's restarts); the last session's `resources/unsubscribe`, or its end, unsubscribes
//     there; a URI no server serves is refused by name, and past 1,000 resources subscribed
//     at once (a template matches any number of URIs) a new one is refused. The server's
//     `notifications/resources/updated` (`MCPServers.WatchResources`) reach the sessions
//     subscribed, only for a URI subscribed at that very server, queued so no server waits on
//     a client. Progress is the server's own, passed through; cancellation
//     reaches the server as `notifications/cancelled`. An elicitation the server sends during
//     its tool's call reaches a client that declared elicitation as one form elicitation
//     ("MCP server `<name>` asks (while its tool `<tool>` runs): …"), the requested schema
//     as the server wrote it, fields in its order; the answer is checked against the schema
//     (only its fields; the whole schema) and asked again with the reason, at most three
//     times, before it goes back to the server. `cwx mcp` commands and a one-shot call still
//     ask field by field on the terminal.
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
//     2026-07-28 the SDK elicits and retries itself, and the server asks each later round (a
//     question or a server's form after the approval) the same way. Decline and cancel deny. Without elicitation the
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
