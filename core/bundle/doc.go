// Package bundle materializes the embedded JavaScript extension-host bundle on disk and
// holds the pinned table of builtin modules a host's hello is checked against.
//
// [Materialize] writes the bundle to $CWX_HOME/extension-host/<sha256>/<name>, with
// LICENSES.txt beside it. Each file is written to a staging file in the same directory,
// made read-only (0444, readable by the sandbox uid of a root cwx), synced, renamed over its final name (so a symlink planted at the
// name is replaced, never written through) and then re-read through a descriptor that
// refuses symlinks and re-hashed. A second call re-verifies what is there and rewrites a
// file whose bytes or mode were changed. The directory name is the digest the core later
// requires in host/hello's bundle_sha256.
//
// [Embedded] is the bundle built into this binary, taken from nodeshim/jshost (data only,
// the one part of nodeshim the core may import); tests pass their own bytes. [Verify]
// checks a materialized copy without writing, for `cwx doctor`.
//
// # Builtin modules
//
// First-party host code runs in the builtin tier as modules, one owner `host:<id>` each, never in a
// process with a plugin.
//
//   - **A module** is `nodeshim/jshost/src/builtin/<id>.ts`, a Cordis plugin (`name`, `inject`,
//     `apply(ctx, config)`) like any other. `scripts/build.mjs` bundles each on its own (esbuild, the
//     host bundle's settings; their inputs count for `LICENSES.txt`) to `dist/builtin/<id>.mjs` and
//     writes `dist/builtin-modules.json`, `[{id, sha256}]` sorted by id; the same table is defined
//     into the host bundle, which reports it in `host/hello`'s `builtin_modules`. Ids match
//     `^[a-z][a-z0-9-]{0,63}$`; `hooks` is the command-hooks module, `script-tools` the script tools.
//   - **The pinned table** is `core/bundle`'s `pinnedBuiltinModules`: `BuiltinModule{ID, SHA256,
//     Tools []ModuleTool{Name, Approval}}`, `Approval` `auto` or `required`. `TestPinnedTableMatchesTheHost`
//     fails when it and `dist/builtin-modules.json` disagree in either direction; `make builtin-table`
//     prints the rows for the built host, to paste by hand (nothing writes the table). The hello must
//     equal it exactly (core/protocol doc.go, “Handshake”), on both tiers.
//   - **Approval** of a builtin tool comes only from the table (`bundle.ToolApproval`): a listed `auto`
//     tool is auto-eligible (`gate.Eligible`), anything else, every tool the table does not name
//     included, is Required like an extension tool. A module's input, config or registration never
//     changes it.
//   - **Work.** At every Reconcile the core computes each module's `core.BuiltinWork{Needed, Config,
//     Notes}` from `config.toml` and the home, with the function the module registers in
//     `core/builtin*.go` (`registerBuiltin(id, source)` from an `init`; `source(m, cfg, want)` sees the
//     desired plugins). Only a needed module gets a desired owner, and the builtin tier starts only when
//     one is needed. `Config` is the JSON the module's `apply` receives (`{}` when nil); its digest is
//     the owner's config digest, so a change activates that module again and no other. `Notes` are
//     reported once per Manager (the log; `Manager.BuiltinModules`, `cwx host status`).
//   - **Activation** is the plugins' path with the module as the only entry: the entry is
//     `$CWX_HOME/extension-host/<bundle sha256>/builtin/<id>.mjs`, written read-only with the bundle by
//     `bundle.Materialize`, and `bundle.VerifyModule` re-hashes it against the pinned digest before
//     every activation, a replay after a restart included. A module whose bundled bytes differ from the
//     pin, or that is not pinned, gets no owner: the reason is its `Problem`, and no host starts for it.
//     The owner's data directory is `$CWX_HOME/extension-host/data-builtin/modules/<id>`. A builtin
//     owner has no receipt and claims no names; its approval key's closure is the sha256 of the module
//     digest and its config digest, so a session grant ends with a change of its work.
//   - **Independence.** The two tiers are separate `supervisor.TierRuntime`s: a crash, restart,
//     heartbeat failure or dirty teardown of one never touches the other's processes or owners, and a
//     call in flight on one completes while the other dies (`TestTiersAreIndependent`). Each tier has
//     its own heartbeat, crash budget and dirty-teardown count: a script tool and a PreToolUse command
//     hook complete while the plugin host is killed, hangs or is torn down dirty, a plugin call completes
//     while the builtin host does, and spending one tier's budget leaves the other Ready
//     (`core/tiers_independent_test.go`).
//
// **`host:script-tools`** (`core/builtin_scripts.go`, `core/scripttools`,
// `src/builtin/script-tools.ts`) turns the executable files of `$CWX_HOME/tools/` with a frontmatter
// (README, “Script tools”) into tools. The core refuses, and reports once, a script whose name folds to
// a native tool's, a reserved name (ARCHITECTURE.md, “Registry rules”) or a tool of a desired plugin (claimed, or live
// at the Reconcile), and reports a script's `approval: auto` as ignored; the others go to the module in
// its config with their path, sha256, schema and timeout. A call runs the script only if it still has
// that sha256, in its own process group, input as JSON on stdin, cwd the call's workspace, environment
// exactly `PATH HOME USER LOGNAME LANG LC_ALL LC_CTYPE TZ TMPDIR` from the core; stdout is the result,
// bounded at `scripttools.MaxOutputBytes` (64 KiB), stderr kept to 16 KiB for the error; the whole
// group is killed with SIGKILL at the timeout, at cancellation, when stdout passes its bound, and when
// the script exits. A non-zero exit is an execution error carrying stderr. A plugin that first
// registers a name in the same Reconcile as a script of that name wins it (the plugin tier activates
// first); the script-tools owner then fails with the clash, and the same Reconcile computes its work
// again without that script and activates it again (`resettleBuiltin`).
//
// **`host:hooks`** (`core/builtin_hooks.go`, `core/cmdhooks`, `src/builtin/hooks.ts`) runs the person's
// command hooks (ARCHITECTURE.md, “Command hooks”). It is needed when `config.toml` configures any; its config is the
// list of hooks (`{id, command, timeout_ms}`), the allow-listed environment and the bounds. It injects
// `shellHooks`, a service the host offers on the builtin tier only (`src/shims/shellhooks.ts`; a
// plugin that asks for it fails its activation), through which it serves `harness/run`. A lazy
// Manager never leaves it inactive (`holdsHooks`): its hooks are configured, not registered, so the
// catalog would otherwise see an owner without hooks.
package bundle
