// Package mcpclient runs the stdio MCP servers of config.toml ([mcp.servers.<name>],
// core/config) and is their client, with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). The core keeps every authority over them:
// which servers exist, spawning and killing them, what
// of their tools is admitted and under which names, approval, and the answers to their
// requests; this package only does the process and protocol work and answers the core's
// questions through a small surface ([Set], [Server], [Tool]).
//
// # Processes
//
// A server starts when it is first needed (a call of one of its tools, `cwx mcp list
// --start`), never at Open: [Set] starts nothing by itself. Each generation is one process
// spawned from the configured command and arguments ([spawn]):
//
//   - through its keeper, the cwx binary run as `cwx nodeshim keep` ([Options.Keeper];
//     nodeshim doc.go, “The MCP servers' keeper”): the keeper leads the server's process
//     group, is a child subreaper, and holds the read end of a lifeline whose write end
//     only this process holds. When the lifeline closes (Close or a kill after
//     [killGrace], or the core dying in any way, SIGKILL included) the keeper kills every
//     process below it, also one the server moved out of its group or session, and when
//     the server ends first it kills what the server left. The group is killed after it,
//     whole, as a fallback. Without a keeper (this package's own tests) the server leads
//     its own group, with, on Linux, a SIGKILL death signal that reaches it alone;
//   - everywhere its stdin's EOF is the specification's request to end, and Close waits
//     [killGrace] after it before the kill;
//   - with a scrubbed environment: [AllowedEnv] (the script tools' allow-list) of the
//     core's, a PATH, then the server's own env table ([Environ]);
//   - in the server's cwd, else the workspace ([Options.Workspace]), which is also the one
//     root it is told;
//   - stdin and stdout are the MCP stream (newline-delimited JSON-RPC, one message at most
//     [MaxLineBytes]: a flood ends the connection); stderr is logged line by line, stripped
//     of terminal escapes (core/inert), as `host: <line>` with plugin `mcp:<name>`, so `cwx
//     logs mcp:<name>` shows it; its last lines name a crash.
//
// A generation that ends unasked (exit, broken stream, a start that fails or exceeds
// [StartTimeout]) is a crash: the server is [StateCrashed] and its next use starts a new
// generation, no sooner than [Backoff] after the last start once the window holds two
// crashes; [CrashLimit] crashes within [CrashWindow] leave it [StateFailed] until Retry.
//
// # Remote servers
//
// A server with a url (config.MCPServer.Remote) is reached instead of spawned (remote.go):
// the go-sdk's Streamable HTTP client transport, or its legacy SSE one (type = "sse", and
// tried when a Streamable initialize is answered 400, 404 or 405), over a core/egress
// client whose policy is the server's: the first request of an exchange to the URL's
// origin only; the private ranges from that origin alone, when the URL names a literal
// address or localhost or allow_private is set; the headers (config.toml's ${env:NAME}
// expanded here, a file's already by core/mcpfile) for that exact origin on every hop;
// redirects one hop at a time; no deadline for a whole exchange (the event stream lives
// with the session), headers awaited at most timeout_s. A 401 with WWW-Authenticate is
// [ErrOAuth]. Header values and the URL's query are replaced by [redacted] in every error,
// status and log line. Over Streamable HTTP the connection is not watched (see
// Server.watched): a form's fields arrive in the SDK's order, and a result is bounded by
// what it holds rather than by the JSON read.
//
// # Protocol
//
// The go-sdk client is made per generation over [mcp.IOTransport] on the process's pipes.
// It advertises roots (the workspace only) and elicitation; not sampling, and a
// sampling/createMessage a server sends anyway is answered -32601 (a receiving
// middleware, as the SDK's own answer is another code). Elicitation is answered only while
// a call of that server's tools runs, by that call's [Call.Elicit] (the newest running
// call's), which gets the requested schema as the server wrote it (the SDK decodes it into a
// map, losing the order of the form's fields, so the connection keeps the bytes it read:
// rawschema.go); URL-mode elicitation is refused. Progress notifications go to the call whose
// token they carry ([Call.Progress]) while the call runs. The SDK hands notifications to
// a handler goroutine and the result to the caller directly, so a progress notification
// the server wrote just before its result may be handled after the call returned; it is
// then dropped, never delivered late. Cancelling a call's context sends
// notifications/cancelled. A call is bounded by timeout_s, and its result by
// max_result_bytes of JSON.
//
// [Server.Complete] relays completion/complete (none from a server that announced no
// completions; at most [MaxCompletions] values) and [Server.Subscribe] resources/subscribe
// (refused for a server that announced no subscriptions, and past [MaxSubscriptions] of one
// server at once). The subscriptions are kept on the
// Server, not the session: each new generation is subscribed again as it starts, until
// [Server.Unsubscribe]. On a protocol version with subscriptions/listen the SDK opens one
// listen stream per subscription, which answers nothing, so a refusal there is not seen.
// A server's notifications/resources/updated reach [Set.WatchResources] (and
// [Options.ResourceUpdated]) from the session's goroutine.
//
// # Names and admission
//
// [Admit] decides what of tools/list (every page followed, at most [MaxToolPages]) the
// model is offered, by the rules plugin tools meet in core/registry: the allow-list, at
// most [MaxTools], descriptions within registry.MaxToolDescription and inert, input and
// output schemas compiled with registry.CompileInputSchema (size, no external $ref, the
// cost bound). A tool's model-facing name is mcp_<server>_<wire> when that fits the
// tool-name grammar, else a mapped name ([ModelName]: what fits, then 8 hex digits of the
// wire name's digest), which [Set.Lookup] resolves from the live admission. Names that fold
// to the same key are all refused, by name. A list_changed notification re-admits. The
// result is deterministic in the listing's order.
//
// Command hooks see a tool as Claude Code names it, mcp__<server>__<wire> ([Tool.HookName]).
// [Blocks] turns a result into the wire's content blocks under core/content's policy and
// validates structuredContent against the admitted outputSchema.
//
// # Catalog
//
// Each server's admitted tools are kept in the core's catalog (core/catalog) under the id
// mcp:<name>, keyed by the server's identity digest (config.MCPServer.Identity: command,
// args, env names, cwd) and the allow-list, so a listing answers without starting it
// ([Set.Cached]); a changed configuration finds nothing. The catalog is advice: a call
// always runs against the live server's admission.
package mcpclient
