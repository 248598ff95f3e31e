// Package jshost carries the JS extension host as data: the committed, reproducible build in
// dist/ of the TypeScript sources next to this file (src/, built by `npm run build`).
//
// The bundle (dist/cwx-extension-host.mjs) is the process that runs plugin code under Node or
// Bun: a Cordis 4 root with the tools, commands, logger and timer services, speaking CWX1
// JSON-RPC on its stdio. This package only embeds dist/ and exposes the bundle's bytes and
// sha256 digest, those of its CommonJS twin dist/cwx-extension-host-snapshot.cjs (the entry a
// Node startup snapshot is built from: ARCHITECTURE.md, “Host snapshot”), its third-party licence notices, the built-in module table the host reports
// in host/hello with the module files (dist/builtin/<id>.mjs), the module specifiers the host resolves itself (which the
// plugin installer needs to decide what a package must bundle), and the pinned DSH compatibility
// table (dist/compatibility.json, src/dsh/compatibility.json copied byte for byte: the services a
// plugin may inject, grouped dsh/cordis/cwx, and those it may never provide, each with why), which
// the host enforces and core/plugins binds into every review and receipt. It has no behaviour of its own
// and imports nothing of the core; core/bundle materializes the bytes on disk.
//
// `.ci/jshost-test` (run by `make test`) rebuilds dist/ into a temporary directory and fails
// when it differs from the committed copy, then runs the JS suites on Node and on Bun.
//
// # Types that hold
//
// The sources prove their types instead of asserting them: a value from outside (decoded JSON,
// a plugin's object, an error, an undeclared runtime internal) is read as unknown and narrowed
// with a type guard (validate.ts isPlainObject, activate.ts isSchema, storage.ts errnoCode), a
// captured built-in gets its receiver and result from a typed constant it is first assigned to
// (primordials.ts), and an indexed read under noUncheckedIndexedAccess is checked, not
// asserted with `!`. Two type assertions remain, both where the RPC peer's validator has
// already checked the value against the generated method table: validate.ts acceptInbound (a
// validated message from the core becomes Inbound) and rpc.ts request (a validated result
// becomes the result type of the method it answers). scripts/count-assertions.mjs counts them
// with the TypeScript parser (`as T` and `<T>x` but not `as const`, and `x!` with definite
// assignment; protocol.generated.ts and cordis-adapter.ts left out) and `npm run typecheck`
// fails above 2 type assertions or any non-null assertion; `npm run assertions` lists them.
//
// # Where errors point
//
// In the JS host (`nodeshim/jshost/src/where.ts`), errors say where. A syntax or type-stripping error
// is `file:line:column: SyntaxError: message`, then the source line and a caret: Bun's build
// message carries the position, Node's type stripping puts it on the stack, and for Node's module
// syntax error (which carries none) the entry is compiled again as a script with its module syntax
// blanked (offsets kept), its location used only when that compile fails with the same message.
// A throw in `apply`, `execute` or `handler` gets ` (at file:line:col)`, the first stack frame
// inside the plugin's staged directory, relative to it (the column is Node's `throw`, Bun's `new`).
// A handler that throws answers `{kind: error, text: "handler threw: …"}`, which `command run`
// reports as "its handler threw", apart from an error answer. A tool whose value is a function or a
// symbol, or holds a BigInt in its plain data, fails ExecutionFailed saying so. A plugin's config
// is checked against its schemastery `Config` before `apply` runs: each key of an object schema on
// its own and every unknown key with the nearest known one, joined in one line `config refused: …`.
//
// # The fetch proxy
//
// A sandboxed host has no network of its own; the core says so in host/initialize
// (`fetch_proxy: true`) and the host then sends its HTTP to the core over net/* (core/protocol
// doc.go, “The fetch proxy”), in src/net/. The global `fetch` is replaced by one that builds the platform's own Request from its arguments (so URL, header,
// body and signal errors are the platform's, and FormData, Blob, URLSearchParams and
// ReadableStream bodies are encoded by it), names the exchange with a host-chosen request_id,
// and carries the calling owner's OwnerRef (its async context, src/owner.ts) and, inside a tool
// call or a command, the invocation's ticket (src/calls.ts wraps the plugin's function in
// withTicket, whose async scope no plugin can read). fetch outside any owner is a TypeError. A
// body of at most protocol.NetMaxChunk (1 MiB) travels whole in net/fetch; a longer one sends
// its first MiB there with body_streamed and the rest in net/write, one chunk in flight, the last
// with end. The answer becomes `new Response(stream, {status, statusText, headers})` with `url`,
// `redirected` and `type: "basic"` set on it (and on its clones) as the real fetch's; the stream
// starts with the body's first bytes, which net/fetch asks for with the head (max_bytes, not for
// a HEAD; an eof there is the whole body, and no net/read follows), then pulls net/read only
// when the plugin reads (highWaterMark 0), each chunk the result's
// attachment (src/rpc.ts refuses one on any other message; the chunk is a plain Uint8Array
// over the frame's own memory with the JSON text before it wiped, or a copy when the payload
// shares its memory; the frame decoder fills a payload as its pieces arrive, src/frame.ts),
// and sends net/close when it is
// cancelled, errored or dropped unread (a FinalizationRegistry on the stream); after eof the core
// has forgotten the exchange and nothing is sent. A net/* error answer rejects with
// `TypeError('fetch failed')` whose `cause` is a FetchProxyError with the core's message (it
// names the origin and the grant), `reason` (protocol.NetReason…) and `origin`; a body that
// fails mid-read errors with `TypeError('terminated')` and the same cause. An AbortSignal abort
// rejects (or errors the body) with the signal's reason, sends `$/cancel` for the pending
// net/fetch, net/write or net/read, and net/close. `data:` and `blob:` URLs stay in the host.
// The platform's Request, Response and Headers are read at the first fetch, and each refused
// module (src/net/refuse.ts) is made at its first import: on Node reading any of them loads its
// whole fetch implementation or the network modules, ~45 ms and ~20 ms of a sandboxed start
// that a plugin which never fetches does not pay (Bun, which will not let a plugin override a
// builtin, still replaces its builtins' exports in place at initialize).
// A gzip, deflate or br content-encoding is decoded as the platform's fetch decodes it. Not
// honoured: `redirect: "manual"` (the core follows redirects itself; `redirect: "error"` fails
// once the head says it was redirected), undici's `dispatcher`, a BYOB reader of the body (it is
// not a byte stream, which would read one chunk ahead of the plugin), and immutable response
// headers.
// `Bun.fetch` stays Bun's own (Bun 1.4 makes it non-writable and non-configurable): from inside
// the sandbox it fails as any connect does.
//
// In the same mode the other ways out refuse with NetworkRefused, whose message names the fetch
// proxy and the grant (“`node:https` (`https.request`) is not available in a sandboxed cwx host:
// use fetch, which goes through cwx's fetch proxy; the origin must be in the plugin's network
// grant ([plugins."<id>"] network in config.toml)”): `node:http`, `node:https`, `node:http2`,
// `node:net`, `node:tls`, `node:dgram` (and Node's `_http_*`/`_tls_*` ids), `undici` (a copy in
// a plugin's node_modules fails its import; Bun's builtin one refuses each function), the
// globals `WebSocket` and `EventSource`, and `Bun.connect`, `Bun.listen`, `Bun.udpSocket`. A
// refused module still imports, so a library that imports `node:https` or builds an Agent at its
// top still loads: its functions and classes refuse when called, its constants and pure helpers
// (`net.isIP`, `http.STATUS_CODES`, …) are real. On Node a module.registerHooks resolve hook
// serves plugin code a generated module in their place and process.getBuiltinModule is wrapped
// to match; Node's own modules never pass the hooks (its child_process keeps its net.Socket).
// On Bun, whose resolver never asks a plugin about a builtin id, the builtin modules' exports are
// replaced in place before the first plugin's import (Bun snapshots a builtin's ESM namespace
// at its first import, which is why boot.ts requires node:net instead of importing it). These
// refusals only make the failure say what to do: the sandbox is what contains the plugin. A host
// without fetch_proxy (unsandboxed) keeps the runtime's own fetch and sockets.
//
// # Git review scopes
//
// DSH review plugins read git metadata with `execFile('git', args, options, callback)` or
// `util.promisify(execFile)` (the merge base, the commits of base..head, the files they change,
// the current branch). In the plugin tier no such call runs git (src/shims/git.ts): on Node,
// plugin code that imports or requires `child_process` (or asks process.getBuiltinModule) is
// served a module of its own, the real exports with execFile and the other functions below
// replaced (module.registerHooks, as for the DSH modules; built at the first ask, and Node's
// own child_process is left as it is and not loaded before); on Bun the builtin's exports are replaced in place before any plugin loads (Bun
// snapshots a builtin's ESM namespace at its first import). `execFile` of `git` (or a path
// ending in /git) sends the
// argument list as core/call `git_review_scope` with the running tool invocation's ticket. The
// core admits only the queries core/gitscope parses (leading `--no-optional-locks` and
// `--no-pager` are accepted), checks them before the gate, and the embedder's GitReviewScope
// runs them in the invocation's workspace (core/services doc.go, “Agent services”). The answer
// settles as execFile's: callback(err, stdout, stderr), or {stdout, stderr} from the
// util.promisify.custom form (whose promise carries `child`), in the options' encoding
// (`'buffer'` or null gives Buffers); `maxBuffer`, `timeout` and `signal` are honoured (an
// abort rejects with AbortError, code ABORT_ERR); `cwd`, `env` and the other options are not
// used, since the query runs where the core says. A `diff --name-only` gets the paths alone
// (the core lists `--name-status`); a commit list is `<hash>TAB<subject>` lines whatever format
// was asked. execFile returns a stand-in for the child: an EventEmitter with no pid or streams
// that emits `exit` and `close` and whose kill() cancels the query.
//
// What is not a query is refused by name, never run: the error (a GitQueryError, code
// ERR_CWX_GIT_REFUSED) says “`git <subcommand>` (execFile) is not provided by cwx: only
// review-scope metadata queries are, through execFile('git', args) inside one of the plugin's
// tools (…)”, then the core's reason when it was the core that refused. A subcommand outside
// merge-base, log, rev-list, diff and rev-parse never reaches the core; a call outside one of
// the plugin's own tools (no ticket) is refused the same way; git through execFileSync, spawn,
// spawnSync, exec or execSync throws it at once. A denial is ERR_CWX_GIT_DENIED; a query the
// agent ran and git failed rejects as a non-zero exit (code 1, the agent's message as stderr);
// an output the core cut at gitscope.MaxOutput, or one over maxBuffer, rejects with
// ERR_CHILD_PROCESS_STDIO_MAXBUFFER and the partial stdout. Every other program keeps
// child_process's own behaviour, and the builtin tier is left alone.
//
// # Frozen intrinsics
//
// Node's `--frozen-intrinsics` (experimental; Bun has no equivalent) was measured against the JS
// suites' DSH fixtures (`test/dsh.test.mjs`, `test/tools-service.test.mjs`,
// `test/activate.test.mjs`: the published `@deepseek-ai/dsh-session-log-export`, the DSH peer
// modules, `defineTool`, `tools.get`) with `CWX_TEST_EXTRA_NODE_FLAGS=--frozen-intrinsics`.
// Findings: the host does not start at all under it, since it freezes `console`, which the host
// rebinds; with that rebinding worked around (an experiment, not kept) every DSH fixture passes,
// and the hostile fixture can no longer patch `JSON`, `Object.prototype`, `Promise.prototype` or
// the array iterator. It does not cover `Buffer`, the stream classes or `process`
// (`Buffer.prototype.write` stays writable), and it turns the ordinary assignment of a method over
// one inherited from a frozen prototype (`obj.toString = …`, the polyfill pattern) into a
// `TypeError` in strict code. So it is not used: the primordials (ARCHITECTURE.md, “Trust model”) hold on both runtimes and
// break no plugin; adopting the flag would need the host to stop assigning to `console`, a Node-only
// code path and a survey of published plugins for the override pattern.
//
// Cost. `BenchmarkCallTool/<runtime>/direct/result-1KiB` (1500 calls, main's bundle and this
// one alternated in one session, load 2–4): Node p50 155–184 µs against 158 µs, Bun 206–212 µs
// against 253 µs, within the run-to-run spread; `result-1MiB` (150 calls) Node p50 7.5 ms
// against 9.6 ms, Bun 3.6 ms against 3.9 ms. The blame notes add two atomic stores per callback
// and no frame.
package jshost
