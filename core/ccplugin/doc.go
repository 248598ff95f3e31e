// Package ccplugin reads a Claude Code plugin folder: the layout Claude Code's plugins
// share hooks and commands in, so cwx can install, review and run one (core/plugins
// installs and trusts it like any plugin; the core runs what this package read).
//
// A Claude Code plugin is a folder with `.claude-plugin/plugin.json` ([ParseManifest]:
// `name`, kebab-case, required; `version` and `description` optional; other fields such
// as `author` ignored, and fields that move components elsewhere, `commands`, `agents`,
// `hooks`, `mcpServers`, `outputStyles`, listed as not read). Beside it:
//
//   - `hooks/hooks.json`, Claude Code's hooks shape, read by cmdhooks.ParseSettings. Its
//     hooks run in the builtin hooks module as a hooks file's do, with CLAUDE_PLUGIN_ROOT
//     the plugin's staged folder (cmdhooks.PluginRoot).
//   - `commands/*.md`, one slash command a file ([ParseCommand]): the file's name is the
//     command's, an optional frontmatter block (`---` lines around `key: value` lines)
//     gives `description` and `argument-hint`, the rest is the prompt. [Command.Expand]
//     puts the arguments in: `$ARGUMENTS` is all of them, `$1` … `$9` each
//     whitespace-separated one (a missing one is empty). The result is a prompt to submit,
//     nothing runs: a body's shell lines (an exclamation mark before a command in backquotes)
//     and `@file` references stay as written, and
//     the review says so. Frontmatter keys other than the two (`allowed-tools`, `model`, …)
//     are noted, not used. A folder under commands/ (Claude Code's namespaces) is listed as
//     not read.
//   - `.mcp.json` ([ParseMCP], read by core/mcpfile): `{"mcpServers": {name: {command, args,
//     env} | {type, url, headers}}}`, or those servers at the top level, as many published
//     plugins write it. The servers are listed ([MCPNotRun]); one runs only once `cwx mcp review
//     <name>` showed what it would run or reach and `cwx mcp trust <name> --token T` trusted
//     exactly that (core/mcpclient, plugins.go). Env and header values are kept for running,
//     never shown.
//   - `agents/`, `skills/`, `output-styles/`: listed as not run.
//
// Every file is bounded ([MaxFileBytes], [MaxCommands]); an error is an [*Error] naming the
// file and saying what to change. The parsers are fuzzed.
package ccplugin
