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
//     Bash, read_file Read, grep_files Grep, file_search Glob, list_dir LS); an exact matcher
//     also accepts the cwx name. Extension tools keep their own names. The natives' input
//     fields already follow Claude Code's (command, file_path, pattern, path), so tool_input
//     holds the call's fields; it is the decoded value, written again as Claude Code's
//     JSON.stringify(JSON.parse(input)) does ([ToolInput], package jsjson), so a hook that
//     matches text sees `.env` where the caller wrote `\u002eenv`;
//   - the event JSON written to the hook's stdin, in Claude Code's field names and meanings,
//     bounded to [MaxStdin]: session_id never empty ([ProcessSessionID]), permission_mode
//     ([PermissionMode]), a toolu_ tool_use_id per call ([ToolUseID]), file tools' paths made
//     absolute, tool_response in Claude Code's per-tool shape ([Response]); a call whose
//     result is an error runs PostToolUseFailure instead of PostToolUse ([Set.AfterCall]);
//   - the environment beyond the module's: CLAUDE_PLUGIN_ROOT for a hooks file at
//     <plugin>/hooks/hooks.json ([PluginRoot], [Hook.ShellCommand]);
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
//     stopReason) says the session ends. The callers (core/session_hooks.go, core/cli's
//     session wiring) decide where a session opens and closes.
//
// A hook that could not be run at all (no module, the host down, a stdin over the bound)
// counts as a block for PreToolUse and UserPromptSubmit: the core cannot tell what the
// person's policy would have said, so it fails closed, as package hooks does.
package cmdhooks
