// Package cmdhooks is the core's half of command hooks: shell commands the user configures
// in config.toml ([[hooks.<event>]]) or in a Claude Code settings.json-format file
// (hooks_file), run by the builtin tier's `hooks` module (owner `host:hooks`) and judged
// here (ARCHITECTURE.md, “Command hooks”).
//
// The split follows the design's rule that a host runs and the core decides. This package
// owns everything but the process:
//
//   - the configuration: [Load] merges config.toml's tables with the hooks file (bounded to
//     config.MaxHookConfigBytes, Claude Code's shape `{"hooks": {"<Event>": [{"matcher",
//     "hooks": [{"type": "command", "command", "timeout"}]}]}}`, other keys of a settings file
//     ignored) into a [Set] of [Hook]s with their matchers compiled;
//   - the matcher, as Claude Code reads it: "" and "*" match every tool; a matcher made only of
//     letters, digits, `_` and `|` is a list of exact names; anything else is a regular
//     expression searched in the tool's name (RE2, so look-around is refused at load);
//   - names: a native tool is shown to hooks, and matched, under Claude Code's name (shell is
//     Bash, read_file Read, grep_files Grep, file_search Glob, list_dir LS, write_file Write,
//     edit_file Edit); an exact matcher
//     also accepts the cwx name. Extension tools keep their own names. The natives' input
//     fields already follow Claude Code's (command, file_path, pattern, path), so tool_input
//     holds the call's fields; it is the decoded value, written again as Claude Code's
//     JSON.stringify(JSON.parse(input)) does ([ToolInput], package jsjson), so a hook that
//     matches text sees `.env` where the caller wrote `\u002eenv`;
//   - the event JSON written to the hook's stdin, in Claude Code's field names and meanings,
//     bounded to [MaxStdin]: session_id never empty ([ProcessSessionID]), permission_mode
//     ([PermissionMode]), a toolu_ tool_use_id per call ([ToolUseID]), file tools' paths made
//     absolute, tool_response in Claude Code's per-tool shape ([Response]; Bash's stdout and
//     stderr apart, from [Outcome.Streams]); a call whose
//     result is an error runs PostToolUseFailure instead of PostToolUse ([Set.AfterCall]);
//   - the environment beyond the module's: CLAUDE_PLUGIN_ROOT for a hooks file at
//     <plugin>/hooks/hooks.json ([PluginRoot], [Hook.ShellCommand]), and for the hooks of an
//     installed Claude Code plugin ([PluginHooks], given to [Load] after the configured
//     files: Source kind "plugin", Hook.Plugin its id), its staged folder;
//   - the decision ([Decide]) from what the module reports of one run ([Result], decoded
//     strictly by [DecodeResult] and checked against [MaxOutput]): exit 0 with optional JSON
//     on stdout ({decision, reason, continue, stopReason, hookSpecificOutput:
//     {permissionDecision, permissionDecisionReason, updatedInput, additionalContext}},
//     suppressOutput, systemMessage), exit 2 blocks with stderr as the reason, any other
//     exit, a timeout or unreadable JSON is a non-blocking error that is logged. "allow" and
//     "approve" never approve: they abstain, and the call goes to the gate as it would
//     without the hook. A reason keeps its lines as written (inert, bounded); only what must
//     stay on one line (a card's note of context, the hook's command) is folded;
//   - the session events: SessionStart ([SessionStartEvent], source always "startup") and
//     SessionEnd ([SessionEndEvent], reason "prompt_input_exit" or "other"), matched on the
//     source and the reason, and Notification ([NotificationEvent], notification_type
//     "permission_prompt" or "elicitation_dialog"), matched on the type. They cannot block
//     (exit 2 and decision block are logged) and do not fail closed. [FoldSession] folds a
//     session event: SessionStart's context (plain stdout or additionalContext) is the
//     session's prompt section ([SessionOutcome.SectionText]); Shown leaves out the context
//     of a hook that answered suppressOutput; continue false (Decision.Stop, with its
//     stopReason) says the session ends. [FoldAfterCall] folds the hooks that followed a
//     call the same way: AfterCallOutcome.Shown leaves out the context (and a block's
//     feedback) of a hook that answered suppressOutput, which Claude Code keeps out of what
//     the person sees; the model still gets all of it, and a systemMessage is still shown.
//     The callers (core/session_hooks.go, core/cli's
//     session wiring) decide where a session opens and closes.
//
// A hook that could not be run at all (no module, the host down, a stdin over the bound)
// counts as a block for PreToolUse and UserPromptSubmit: the core cannot tell what the
// person's policy would have said, so it fails closed, as package hooks does.
//
// # Command hooks
//
// Shell commands the person configures, in Claude Code's format, judged by the core and run by the
// builtin `hooks` module (`core/cmdhooks`, `core/builtin_hooks.go`, `src/builtin/hooks.ts`).
//
//   - **Configuration.** `[[hooks.PreToolUse]]`, `[[hooks.PostToolUse]]`,
//     `[[hooks.PostToolUseFailure]]` and `[[hooks.UserPromptSubmit]]` tables (`matcher`, `command`, `timeout_s`: 1–120, default 60) and
//     `hooks_file`, a top-level key naming a Claude Code `settings.json` (relative to `$CWX_HOME`) or
//     a list of them, ordered by `config.SettingsKind` (user, project, local project, other; stable)
//     and listed as `cmdhooks.Set.Sources`,
//     read strictly for its `hooks` key only (`cmdhooks.ParseSettings`): other events and hook types
//     are left out with a note, a timeout outside 1–120 s is clamped with a note. Both together hold
//     at most `config.MaxHooks` (128) hooks; commands and matchers of `config.toml`, and the file,
//     are each bounded to 64 KiB. Ids are `<Event>[n]`, config.toml's first.
//   - **Matching** (`cmdhooks.Set.Matching`): `""` and `*` match every tool; a matcher of letters,
//     digits, `_` and `|` is a list of exact names; anything else is an RE2 regular expression
//     searched in the name (a look-around fails the load). The name is Claude Code's for a native
//     (`shell` `Bash`, `read_file` `Read`, `grep_files` `Grep`, `file_search` `Glob`, `list_dir`
//     `LS`), the tool's own otherwise; an exact matcher also takes the cwx name.
//   - **The run.** For each gated call (ARCHITECTURE.md, “Pre-execute hooks”), before the plugin hooks are asked,
//     `Manager.preExecute` runs every matching PreToolUse hook at once, each with `harness/run
//     {owner, execution_id, ticket: "", deadline_ms, hook: {event, dialect: "claude-code", point:
//     <id>, matcher, query}}` to `host:hooks`, where `query` is the exact stdin as a JSON string (the
//     event in Claude Code's field names, at most `cmdhooks.MaxStdin`, 64 KiB; `tool_input` is the
//     decoded value, `cmdhooks.ToolInput`, as ARCHITECTURE.md, “Pre-execute hooks” says). The module runs the
//     command its config names under `point` with `/bin/sh -c` in the workspace, in its own process
//     group, environment the allow-list plus `CWX_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`; a hook of a
//     hooks file at `<plugin>/hooks/hooks.json` (a Claude Code plugin's layout) carries
//     `CLAUDE_PLUGIN_ROOT=<plugin>` as an export line the core puts before its command
//     (`cmdhooks.Hook.ShellCommand`; the module's environment is one for all hooks), and answers
//     `{exit_code, signal?, timed_out, stdout, stderr, stdout_truncated, stderr_truncated, error?}`,
//     each output cut to `cmdhooks.MaxOutput` (16 KiB) at a character boundary. The group is killed
//     with SIGKILL at the timeout, on `$/cancel` and once the shell exits (a pipe a runaway
//     descendant keeps open is dropped a second later). The core decodes the answer strictly
//     (`cmdhooks.DecodeResult`; an unknown field or an output over the bound is a violation) and
//     bounds the wait to the hook's timeout plus `cmdhooks.RunGrace` (5 s).
//   - **The event's fields** (`cmdhooks.Session`, `Manager.hookSession`): `session_id` is the
//     call's session label or `cmdhooks.ProcessSessionID` (a UUID per process); `cwd` the workspace
//     or the process's folder; `permission_mode` the posture's Claude Code name
//     (`cmdhooks.PermissionMode`: ask `default`, auto `bypassPermissions`, deny `dontAsk`);
//     `transcript_path` is `cmdhooks.Transcripts.Path` under `$CWX_HOME/transcripts` (written only
//     while command hooks are configured: the call's `tool_use` line before the PreToolUse hooks,
//     its `tool_result` line after the call; 0600, rotated at `cmdhooks.MaxTranscript`, 8 MiB);
//     `tool_use_id` is `cmdhooks.ToolUseID(callID)`, `toolu_01` and 22 characters of a SHA-256 of
//     a per-process random salt and the call id, so one call's events share it and no two calls do.
//     A native file tool's path is made absolute in `tool_input`, its bytes otherwise left as
//     `jsjson.Reencode` wrote them. After the call `cmdhooks.Set.AfterCall` runs PostToolUse for a
//     success, with `tool_response` in Claude Code's per-tool shape (`cmdhooks.Response`; Bash's
//     `stdout` and `stderr` apart, as the shell native keeps them in `natives.Result.Streams`; MCP's
//     `CallToolResult` for an extension tool), and PostToolUseFailure for an error result, with
//     `error`; a result over the stdin bound is cut until the event fits.
//   - **The decision** (`cmdhooks.Decide`): exit 2 blocks with stderr as the reason; exit 0 reads
//     optional JSON: `continue: false`, then `hookSpecificOutput.permissionDecision` (`deny`, `ask`,
//     `allow`) with `permissionDecisionReason`, then the older `decision` (`block`, `approve`) with
//     `reason`; `updatedInput` (PreToolUse, an object) and `additionalContext`. Another exit, a
//     timeout, unparsable or cut JSON and an unknown decision are non-blocking errors: logged, the
//     hook decides nothing (Claude Code's rule). `systemMessage` is kept as `Decision.Message`
//     (inert, lines kept, 8 KiB): a block's or ask's reason ends with it, a PreToolUse pass makes it
//     an annotation, and after a call `cmdhooks.Messages` puts it in `ToolResult.HookMessages`,
//     which the CLI, the REPL and `serve --mcp` show the person. `allow` and `approve` abstain: a command hook never
//     approves, so the gate decides as it would without the hook.
//   - **The fold.** PreToolUse decisions become `core/hooks` answers of plugin `host:hooks`, folded
//     before every plugin hook: a block is a deny (“…denied the call: <reason> (command hook <id>
//     `<command>`, exit 2)”), an ask an ask, `updatedInput` a revise, `additionalContext` an
//     annotation. Reasons are made one inert line within `hooks.MaxText`. PostToolUse runs after the
//     call returned (natives and extension tools, `ToolResult.HookContext`; `HookContextShown`,
//     what the terminal and the REPL print, leaves out a `suppressOutput` hook's): its context and the
//     reason of a block go back to the caller, never undoing the call. `Manager.SubmitPrompt` runs the
//     UserPromptSubmit hooks: a block refuses the prompt with the first reason; otherwise the context
//     (plain stdout counts) comes back. Context is inert text, at most `cmdhooks.MaxContext` (8 KiB) a
//     hook and `cmdhooks.MaxContextTotal` (16 KiB) an event.
//   - **Failing closed.** Hooks that do not load (`cmdhooks.Load`: a missing or oversized file, a bad
//     matcher) deny every gated call and block every prompt with the reason; a hook that cannot run
//     (the module not live, the stdin over its bound, no answer in time) blocks the PreToolUse call or
//     prompt it matched. A PostToolUse hook that cannot run is logged.
//   - **Logs.** The core logs every decision through hclog (`command hook`: hook, event, command,
//     tool and its Claude Code name, what the hook said, the decision, the reason or error); the module
//     logs each run (exit, duration, byte counts) to its owner's log, `cwx logs host:hooks`.
//   - `cwx hooks list [--json]` shows the loaded hooks and notes; `cwx hooks test EVENT --input JSON`
//     runs them through the module as the core would and prints each decision and the outcome.
package cmdhooks
