// Package cli holds the cobra commands of the cwx binary, one file per command group:
// version, protocol (check frames against the wire rules), doctor (runtime, memory cap,
// sandbox, bundle), config (check config.toml), plugin (install, review, trust, enable,
// disable, untrust, remove, list, show, reload, outdated, update, marketplace; for authors
// new, types and dev), tool and command (list and call what enabled plugins register), host
// (tier status), logs (the plugins' kept log lines), skills (list the skills plugins are
// offered) and repl (warm hosts for a session, with line editing on a terminal).
//
// Of the agent services (core/services doc.go, “Agent services”) the binary provides Skills alone
// (skills.go): every Manager it opens gets the roots `<workspace>/.cwx/skills`, then
// `$CWX_HOME/skills` (cliSkills; the workspace is the command's --workspace, or the working
// directory), so a plugin's `skills.list()` works under `tool call`, `command run`, `repl`,
// `serve --mcp` and `plugin dev`. `cwx skills list` audits the same roots with the core's own
// package skills and prints what a plugin gets, then each candidate refused and why (exit 3
// when one was). Sessions, Subagents and GitReviewScope stay refused by name.
//
// `plugin install npm:NAME[@VERSION|RANGE|TAG]` (plugin_npm.go) resolves through core/npmreg,
// writes the tarball into the store's private folder only once its sha512 matched, and hands
// that file to Store.InstallWith with its origin; --from-lock (plugin_lock.go) does the same per
// locked entry with the locked integrity and closure hash; `plugin outdated` and `plugin
// update` (plugin_update.go) compare with the registry and stage a pending update; `plugin
// marketplace` and NAME@MARKETPLACE installs (plugin_marketplace.go) go through
// core/marketplace: extractMarketplace writes the entry (a folder of the marketplace, or the
// root of its own git repository at one commit) into the private folder, which is installed,
// or for `plugin update` of a marketplace plugin staged as an update, as a folder is.
//
// A Claude Code plugin folder installs like any folder: `plugin review` and `plugin show`
// print its parts (writeClaudeReview: each hook command, unsandboxed, with a warning for one
// that fetches code at run time; each command; each MCP server, not run yet; what cwx does
// not run), `plugin show` starts no host for it, and `hooks list` adds the hooks of the
// trusted ones (claudePluginHooks), each source naming its plugin.
//
// `plugin dev` runs one folder under a dev receipt (ARCHITECTURE.md, “Plugins and trust”):
// each change re-stages it and activates the new closure under a new generation on the warm
// host of its own Manager, printing attributed log lines, activation times and the latency of
// the calls typed on its stdin. Plugin log lines reach the log files through an hclog sink on
// the Manager's logger ([fileSink]), so every command that runs plugins keeps them.
// Its loop (plugin_dev_loop.go) owns everything that changes: it reads stdin, the watcher
// (the folder and, through its folder, config.toml) and SIGINT, and runs one call at a time
// on its own goroutine, whose answer it prints before reading the next line. Ctrl-C cancels
// that call (context.Cause says why: Ctrl-C, a re-stage, --timeout, the session's end), a
// second within devDoubleInterrupt or one with no call ends the session. Lines and errors
// naming the staged copy are rewritten to the author's folder (authorPaths). --inspect
// (plugin_dev_inspect.go) runs the plugin in a host of its own (core.Options.Isolate),
// adjusts that host through core.Options.Tier (Node's inspector flag on 127.0.0.1, no
// sandbox, supervisor.Options.Debugged) and gives its calls core.CallOptions.Deadline, so no
// deadline fires while a breakpoint holds the host.
//
// Output is written for people by default (tables, plain sentences, errors that say what
// to do) and for programs with --json (documented structs whose goldens live in
// testdata/cli). Every command maps its failure to the exit codes listed in the README
// through [ExitError]: 0 ok, 1 internal error, 2 usage or unreadable input, 3 invalid input
// or a check that disagrees, 4 denied, 5 unavailable, 6 plugin error, 7 timeout or
// cancelled. Text a plugin wrote is printed to a terminal with escapes stripped.
//
// A one-shot `tool call` or `command run` starts the activations it needs and
// waits for the name to be live by following the core's change feed ([core.Manager.Changes],
// subscribed before the first look), reconcile's end, or liveWait; it never polls the catalog.
// The result names the tool's plugin from one look made before the call. The repl and
// `plugin show` still look at tier and owner states every livePoll while they wait, since
// the change feed reports catalog changes only.
//
// SIGTERM cancels the running command's context (Main runs every command under it); a
// command still running termGrace later, whatever it is doing, is ended by exiting the
// process (status 7), and a second SIGTERM exits at once (watchTerm).
//
// # Debugging a plugin
//
// `cwx plugin dev --inspect[=PORT]` (or `--inspect-brk`) runs the dev plugin in a host of its own
// (`core.Options.Isolate`, as if it had `isolation = "process"`), so no other plugin shares it.
// Through `core.Options.Tier` that host gets Node's `--inspect=127.0.0.1:PORT` (a free port by
// default), no sandbox (the inspector needs the host's network), and `supervisor.Options.Debugged`,
// which turns the handshake, start, heartbeat and hang deadlines and the host's own activation bound
// into `supervisor.DebuggedDeadline`; `Host.Call` drops callers' timeouts (their contexts still
// apply), and the session's calls carry `core.CallOptions.Deadline` in place of `ToolCallDeadline`
// and `CommandRunDeadline`. This lasts the whole session: cwx cannot tell when a debugger attaches.
// Bun runs without an inspector (its inspector speaks WebKit's protocol), and the session says so.
// The plugins watcher follows the dev sessions alive (lock files held), not only the state
// generation, so a `serve --mcp` or `repl` drops a dev plugin whose session was killed.
//
// # CLI conventions
//
// Tiers belong to the process that started them. A one-shot command starts only the tiers it needs
// and stops them before exiting (`tool list`, `command list`, `tool call` and `command run` are
// lazy, ARCHITECTURE.md, “Catalog”); `cwx repl` and `cwx serve --mcp` keep their hosts running until the session ends; an
// embedding program keeps its `Manager`, and with it the hosts, until it calls `Close`. Command
// groups: `version`, `protocol check`, `doctor`, `config check`, `plugin` (`install`, `review`,
// `trust`, `enable`, `disable`, `untrust`, `remove`, `list`, `show`, `reload`), `tool` (`list`,
// `call`), `command` (`list`, `run`), `host status`, `prompt show`, `repl` and `serve --mcp` (core/mcpserve doc.go, “MCP server”).
// `tool call`, `command run` and `repl` take `--session ID`, the label a plugin sees as
// `exec.sessionId` / `invocation.sessionId` (`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`, exit 2 otherwise);
// the same commands ask a plugin's questions on the terminal (ARCHITECTURE.md, “Questions to the person”).
//
// **SIGTERM** (`core/cli/terminate.go`) cancels the running command's context at once, so it winds
// down and closes its hosts as usual; a command still running `termGrace` (10 s) later, whatever it
// is doing (a validation, a call that ignores its context, a read of stdin in `repl`), is ended by
// exiting the process with status 7 and a line on stderr, and a second SIGTERM exits at once. The
// hosts end with the process: each shim kills its runtime's group when its lifeline closes. This
// holds for every command, `serve --mcp` (stdio and HTTP), `repl` and the one-shots included
// (`TestSIGTERMWhileValidating` drives each while it validates a million-item input).
//
// Exit codes, the same for every command (constants in `core/cli/exit.go`):
//
// Columns: code, constant, meaning.
//
//   - 0: `cli.ExitOK`, ok
//   - 1: `cli.ExitInternal`, internal error
//   - 2: `cli.ExitUsage`, usage, or unreadable input
//   - 3: `cli.ExitInvalid`, invalid input, or a check that disagrees
//   - 4: `cli.ExitDenied`, denied
//   - 5: `cli.ExitUnavailable`, unavailable, including "no usable runtime"
//   - 6: `cli.ExitPlugin`, the plugin's code failed
//   - 7: `cli.ExitTimeout`, timeout or cancelled
//
// A name that is not there is 5 whatever it names: a tool, a command, a plugin (`plugin
// show|review|trust|enable|…`, `logs`). A tool or command of a plugin whose activation failed
// or that faulted is 6, as the listings that name that plugin are. `repl` from a script exits
// with its first failed command's status; at a terminal it exits 0, each error shown where it
// happened. `TestExitCodeTable` runs every command group into each of its failure kinds.
//
// **Failed plugins are listed where people look.** `tool list` and `command list` print, after the
// table, one line per enabled, trusted plugin that is not active (`cli.PluginFailure`: plugin,
// state, the first line of the reason, a schema refusal shortened), and exit 6; with `--json` the
// array stays on stdout and those lines go to stderr. Each row has a `source` column (`live`, or
// `cached` when the catalog answered, ARCHITECTURE.md, “Catalog”). `plugin list` activates the enabled plugins when
// one is runnable and shows a failed one as `failed` (`PluginListItem.State`, `Reason`).
// `plugin show` prints each diagnostic once: a refusal repeated by the activation failure, the live
// reason and this activation's problems is left out after its first line; a multi-line diagnostic
// (a syntax error's source line and caret) keeps up to four lines; a JSON Schema refusal is cut to
// the schema location and the reason for every violation (one per location), the metaschema
// path only under `--verbose`; a listing's line for it starts with the tool and keeps every
// violation (failureLine). A missing tool or command gets one answer on every surface
// (`notLiveAnswer`, absent.go): the plugin it belongs to, that plugin's state and why, the
// next cwx command, and the near misses; `tool list`, `command list` and the REPL name the
// enabled plugins that are not active, held back by their record too, and `cwx logs PLUGIN`
// merges the plugin's recorded diagnostics (activation failures, faults, refusals). `config check`
// activates the enabled plugins too (not under `--offline`) and lists, per plugin, every problem its
// `Config` schema found (`ConfigCheckPlugin.SchemaProblems`), exit 3. It also loads the command
// hooks as the core would (`cmdhooks.Load`): a hooks file that cannot be read or is not Claude
// Code's shape, or a matcher that does not compile, is reported with the hook named, exit 3.
//
// With `--json`, each command prints one of the documented structs of `core/cli`; the goldens in
// `testdata/cli` pin them. Anything a plugin wrote reaches a terminal only through `inert.Strip`, and
// `--json` output only with control and bidi characters as `\u` escapes (ARCHITECTURE.md, “Plugins and trust”). Error text for people ends with what to do next, and that advice is written in
// `core/cli` alone.
//
// Output for people follows the usual terminal conventions (`core/cli/color.go`, `progress.go`):
//
//   - **`--json` on every command that prints**, `plugin trust`/`enable`/`disable`/`untrust`/`remove`
//     included (`cli.PluginStateChange`: id, version, closure, action, status after it, `next`,
//     `kept_data_dir`), and `plugin new` (`cli.PluginNewResult`). `--json` output has no colour; the
//     progress line goes to stderr only. Left without it: `repl`, `serve`, `plugin dev` (sessions),
//     `plugin types` (prints the `.d.ts` itself) and `logs` (prints the log lines as they were kept).
//   - **Colour only on a terminal**, and never when `NO_COLOR` is set to a non-empty value or
//     `TERM=dumb`. Colour repeats what the words say (a plugin's status, the approval card's title and
//     choice letters, the red `cwx:` of an error); it is added after `inert.Strip`, so the CLI's own
//     escapes are the only ones printed.
//   - **A progress line on stderr** for anything still running after 500 ms: the tier start and
//     activations of `tool list`/`command list`/`plugin list`/`prompt show`, `tool call`/`command run`
//     (the start, then the call itself), `plugin install`. Only when stderr is a terminal; erased
//     before the result is printed; paused while an approval card or a plugin's question waits for an
//     answer.
//   - **Help renders**: no flag usage string has a backquoted word (pflag would print it as the flag's
//     type).
//   - `cwx version` prints the module version, the Go toolchain and the embedded extension-host
//     bundle's sha256 (the digest `host/hello` must report).
package cli
