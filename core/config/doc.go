// Package config finds the cwx home directory and reads its config.toml.
//
// The home is $CWX_HOME, or ~/.cwx when that is unset; [Home] creates it with mode 0700.
// config.toml is decoded strictly: a key cwx does not know is an error that names the key,
// so a typo never silently falls back to a default. The tables and keys:
//
//	[extension_host]             # how plugin hosts run (core/runtime doc.go, “Runtimes”)
//	runtime = "node"             # "node" (default), "bun" or "auto"
//	node = "/abs/path/to/node"   # a configured path is the only candidate for its runtime
//	bun = "/abs/path/to/bun"
//	memory_limit_mib = 1024      # RLIMIT_DATA of the runtime, default DefaultMemoryLimitMiB
//	approval = "ask"             # extension tool approval posture: ask (default), auto, deny
//
//	[plugins."<plugin id>".config] # passed to the plugin's apply(ctx, config)
//	key = "value"
//
//	hooks_file = "settings.json"   # top-level: a Claude Code settings file's hooks (hooks.go)
//	[[hooks.PreToolUse]]           # also PostToolUse and UserPromptSubmit
//	matcher = "Bash"
//	command = "./guard.sh"
//	timeout_s = 60                 # 1 to 120
//
//	mcp_servers_file = ".mcp.json" # top-level: Claude Code / VS Code MCP files (a list allowed)
//	[mcp.servers.<name>]           # an MCP server the core runs (mcp.go, core/mcpclient)
//	command = "npx"                # a program on PATH or an absolute path
//	args = ["-y", "pkg"]
//	env = {TOKEN = "..."}          # added to the scrubbed environment
//	cwd = "/abs/dir"               # default: the workspace of the call
//	approval = "ask"               # ask (default) or auto
//	tools = ["echo"]               # allow-list of the server's tool names; default all
//	timeout_s = 120                # one call's bound, 1 to 3600
//	max_result_bytes = 1048576     # one result's bound, 1 KiB to 16 MiB
//	[mcp.servers.<remote>]         # a remote server: url instead of command, args, env, cwd
//	url = "https://mcp.example.com/mcp"
//	type = "http"                  # http (Streamable HTTP, default) or sse (the legacy one)
//	headers = {Authorization = "Bearer ${env:TOKEN}"} # for the URL's exact origin only
//	allow_private = true           # a name may resolve to private/loopback/link-local
//
// A server name matches ^[a-z][a-z0-9-]{0,31}$ (no `_`, so `mcp_<server>_<tool>` is
// unambiguous). A server in config.toml is the user's decision: it needs no review.
//
// memory_limit_mib below the chosen runtime's minimum ([MinMemoryLimitMiB]: Node's, or Bun's
// for "bun" and "auto") is a load error naming that minimum: under it the host cannot serve.
//
// A plugin's config table must hold plain TOML values only: no date-times, at most
// [MaxPluginConfigDepth] levels of nesting and at most [MaxPluginConfigBytes] once
// serialized as the JSON that travels in ext/activate. A table over a limit is not a load
// error: it is recorded on that plugin alone ([Plugin.Err]) so every other plugin keeps
// working, and that plugin's activation fails with the reason before any host is asked.
//
// Every plugin entry carries a digest ([Plugin.Digest]): the sha256 of the exact JSON the
// plugin will receive, or of the refusal reason when the table was refused. A reconciler
// compares digests to re-activate exactly the plugins whose configuration changed; hashing a
// refusal by its reason means a broken table is not retried on every reconcile, and fixing
// it changes the digest so the plugin recovers.
//
// # Configuration
//
// `$CWX_HOME/config.toml` is decoded strictly: an unknown key is an error naming the key.
//
//   - `[extension_host]`: `runtime`, `node`, `bun` (see core/runtime doc.go, “Runtimes”), `memory_limit_mib` (between
//     the chosen runtime's minimum, `config.MinMemoryLimitMiB(runtime)`, and
//     `config.MaxMemoryLimitMiB`, default `config.DefaultMemoryLimitMiB`; below the minimum it is a
//     load error naming it) and `approval` (`ask`, `auto` or `deny`; see ARCHITECTURE.md, “Approval”).
//   - `[plugins."<id>".config]` reaches the plugin's `apply(ctx, config)` as JSON. It holds plain TOML
//     values only: no date-times, at most `config.MaxPluginConfigDepth` (16) levels, at most
//     `config.MaxPluginConfigBytes` (16 KiB) serialized. A table over a limit is not a load error: that
//     plugin alone fails its activation with the reason, before any host is asked. A table the
//     plugin's own `Config` schema refuses fails that plugin's activation in the host, before `apply`
//     runs, with every problem named (core/errdefs doc.go, “Errors”); `cwx config check` reports them per plugin.
//   - Each plugin's config has a digest (of the JSON it receives, or of the refusal reason); the owner
//     records it, and when the digest changes, that plugin, and no other, is activated again.
//   - `hooks_file` (a top-level key, so before the first table) and the `[[hooks.PreToolUse]]`,
//     `[[hooks.PostToolUse]]` and `[[hooks.UserPromptSubmit]]` tables (`matcher`, `command`,
//     `timeout_s`) configure the command hooks (ARCHITECTURE.md, “Command hooks”); a bad table is a load error naming
//     it, a hooks file that does not load fails the hooks closed.
package config
