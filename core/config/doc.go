// Package config finds the cwx home directory and reads its config.toml.
//
// The home is $CWX_HOME, or ~/.cwx when that is unset; [Home] creates it with mode 0700.
// config.toml is decoded strictly: a key cwx does not know is an error that names the key,
// so a typo never silently falls back to a default. The tables and keys:
//
//	[extension_host]             # how plugin hosts run (ARCHITECTURE.md, “Runtimes”)
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
package config
