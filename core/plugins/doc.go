// Package plugins keeps plugins on disk: identity and paths, manifests, installation
// without fetching, closure hashing, review and trust receipts, and the state store that
// says which plugins are desired.
//
// # Identity and paths
//
// A plugin's id is its plugin.json name or its npm package name, verbatim
// ("@deepseek-ai/dsh-session-log-export"). On disk it becomes [DiskName]: the id sanitized
// to [a-z0-9-] (at most 64 characters) plus '-' and the first 12 hex digits of sha256(id).
// Staged copies live under $CWX_HOME/plugins/<disk name>/<closure sha256>/ (read-only);
// the plugin's writable data directory is $CWX_HOME/extension-host/data/plugins/<disk
// name>/ (0700, created before activation by [Layout.EnsureDataDir], stable across
// generations and updates, kept by `remove` unless asked to purge). A plugin can write the data
// folder, so every create, check, chmod and purge below it goes through an [os.Root] on it,
// one folder at a time, refusing a symlink anywhere on the path ([OpenDirNoFollow],
// [*SymlinkError]).
//
// # Manifests
//
// A folder with plugin.json (name, version, description, native: one entry path or a list of
// at most [MaxEntries], each .mjs, .js, .mts or .ts; the spelling extensions."net.codewhale".native
// as a string, {path}, {paths} or list is accepted too), or an npm package whose package.json
// "." export (conditions import, node, default; else main; else index.js) is a Cordis plugin.
// When both files exist plugin.json names the plugin and package.json contributes scripts and
// dependencies. Top-level plugin.json fields cwx does not use (a Codewhale plugin's skills or
// MCP servers) are ignored; the native forms are checked strictly. Every manifest error is a
// [*ManifestError] naming the file and the field.
//
// A folder with .claude-plugin/plugin.json (and no plugin.json at its root) is a Claude Code
// plugin ([KindClaudeCode], read by package ccplugin): it has no entries, since no host
// code runs; its hooks/hooks.json, commands/*.md and .mcp.json are what the review lists
// ([ClaudeReview]: each hook command, with [FetchNotCovered] for one that fetches code when
// it runs, each command, each MCP server as [ccplugin.MCPNotRun], and what cwx does not run,
// agents/, skills/, output styles). It installs, is hashed, reviewed and trusted like any
// folder; the closure covers the whole folder, hook scripts included. [Store.Desired] leaves
// it out (the owner layer starts no host for it); [Store.ClaudeCode] lists the enabled ones
// whose receipt holds and whose staged copy verifies, for the core to run their hooks and
// commands.
//
// # Install
//
// [Store.Install] takes a folder or a .tgz. It refuses ([*RefusalError]) install scripts
// (preinstall, install, postinstall, prepare), symlinks that leave the package, absolute or
// ".." tarball entries, hard links, device files, sparse files, more than [MaxFiles] entries
// (files, symlinks and folders; every tar header counts) or [MaxBytes] bytes (an entry's
// announced size is judged at its header), more than MaxBytes + MaxFiles ×
// [TarOverheadPerEntry] bytes of uncompressed tar stream, and runtime dependencies that are neither
// bundled under node_modules inside the package nor host singletons (the provided-modules
// list of nodeshim/jshost, passed in [Options.Provided]); the refusal lists what is
// missing. Nothing is fetched and nothing runs. A tarball is unpacked, and the package then
// copied, into a private folder under $CWX_HOME/plugins/.tmp/ with every folder, file and
// symlink created through an [os.Root] opened on it, so no entry is written through a
// symlink that leaves it (a chain of links that looks local included); link targets are
// judged by name and then resolved on disk. The folder is removed on any failure.
// The copy is staged read-only and named by its closure hash:
//
//	sha256( "cwx-closure-v1\x00" ||
//	        for each file, sorted by slash-separated relative path in byte order:
//	            kind ('f' regular file | 'l' symlink) || path || 0x00 ||
//	            length (8 bytes, big-endian) || content (the link target for a symlink) )
//
// Every file counts, node_modules included; modes and times do not. Different bytes under
// an installed id are a new version: the record keeps its enabled flag and its old
// receipt, which no longer matches, so the plugin stops until it is reviewed again.
//
// # Origins, the lock and updates
//
// [Store.InstallWith] is Install with options: the [Origin] to record (core/cli passes the
// npm name, version, query, registry, tarball URL, sha512 integrity and deprecation of a
// by-name install, or a marketplace entry's marketplace, commit and folder, or for an entry
// in a git repository of its own that repository's URL and commit; without one a folder or
// a tarball records itself, a tarball with its sha512), a closure hash the staged copy must have (a lock's, refused before anything is
// recorded), and StageOnly. Record.Origin is kept in state.json, and the store rewrites
// $CWX_HOME/plugins.lock ([Lock], [ReadLock]) from state.json after every change of what is
// installed, so the lock is a projection and state.json stays the one record. Installing
// the same bytes from another origin only updates the origin.
//
// [Store.StageUpdate] stages a new version beside the running one and returns an
// [UpdateReview] (files added, removed and changed; entries; statically visible injects;
// dependencies; grants, which plugins do not declare; install scripts, always refused). The
// record gains a [Pending] update; its version, closure and receipt stay the running
// version's, so the plugin keeps running. [Store.Trust] with the pending review's token
// re-hashes the staged copy and promotes it; the running version's own token does not. A
// dry run removes the staged copy and records nothing.
//
// # Review, trust and receipts
//
// A plugin is installed disabled and untrusted. [Store.Review] re-hashes the staged copy
// and describes it, ending with [ReviewToken] (bound to the id, the closure hash and the
// activation policy version with the compatibility table's digest). [Store.Trust] needs that token and writes a [Receipt]. A
// receipt fails closed: [Store.CheckReceipt] (in memory) reports ErrNotTrusted,
// ErrCapabilitiesChanged when [PolicyVersion] moved or an injected service changed status in
// the compatibility table, ErrContentChanged when the installed
// closure differs; [Store.VerifyClosure] (before every activation, replays after a host
// restart and planned restarts included) checks the whole staged copy and reports
// ErrContentChanged. It re-hashes only a folder in which some file's identity (device and
// inode), size, mode, modification or change time moved since it last hashed to the
// closure, or changed within two seconds of that hash; so a module that rewrites one of its
// own files is caught at the next activation at the cost of a stat per file.
//
// # The compatibility table
//
// The JS host enforces one pinned table, nodeshim/jshost's dist/compatibility.json ([Compat],
// [ParseCompat]): `provided_services`, the services a plugin may inject, grouped by who
// declares them (dsh, cordis, cwx); `builtin_services`, the further ones only builtin modules
// may inject; `refused_services`, the names no plugin may provide, each with why. Its sha256 is
// shown by every review, is bound into the review token (a review shown under one table does
// not trust under another), and is recorded in the receipt with what the table said of each
// service the plugin's entries inject (the providing group, or none). A changed table does not
// move [PolicyVersion]: [Store.CheckReceipt] keeps a receipt while every one of those services
// keeps its status, and otherwise reports ErrCapabilitiesChanged naming each service, what it
// was and what it is now ("service `storage` was not provided and is now provided (dsh)"). An
// entry that names inject without a literal cwx can read (a computed inject, a bundler's lowered
// class field) counts as changed on any new table. The same rule settles
// receipts written before the table: they are judged as written under the services cwx first
// provided (tools, commands, timer and Cordis' logger, events, reflect, registry), so a plugin
// that injects prompt, systemPrompt, storage or userQuestions, provided since, is reviewed
// again, and one that injects only those first services keeps its trust.
//
// [Store.TrustDev] writes a dev receipt (`cwx plugin dev`, folders only): bound to the
// closure like any receipt and to the token of a [DevSession] ([Store.BeginDev]), valid only
// while that session holds the flock on $CWX_HOME/dev/<token>.lock (the kernel releases it
// when the process dies, so a reused pid proves nothing), dropped by [Store.EndDev];
// [Store.Status] reports [StatusDev] for it
// (ARCHITECTURE.md, “Plugins and trust”).
//
// # State
//
// $CWX_HOME/state.json holds every record, its receipt, enabled flag and a diagnostics ring of
// [DiagnosticsRing] entries ([Store.AppendDiagnostic]). It is one small JSON file because
// every command reads all of it and changes are rare; it is replaced atomically (temporary
// file, fsync, rename, fsync of the folder) under an exclusive flock on $CWX_HOME/state.lock,
// so concurrent cwx processes serialize their read-modify-write and readers never see a torn
// file. A file that does not parse, is over [MaxStateBytes], is not a regular file (a FIFO, a
// device, a symlink) or holds a record cwx could not have written (an id, hash or entry path
// that would lead a path or a decision astray) is reported with its path
// ([*CorruptStateError], a case of errdefs.ErrCorrupt) and never reset. Each record also keeps the plugin's first-trust time
// ([Record.FirstTrust]; trusting again after an update or an untrust keeps it) and its claims,
// the names it registered at its last successful activation ([Store.SetClaims]); the core's
// registry ranks plugins contending for a name by them (ARCHITECTURE.md, “Registry rules”).
// Neither moves the generation. The generation counter increases with every change to what is desired; [Watcher]
// re-reads it every [PollInterval] and answers callers from memory.
//
// # For a Manager
//
//	s, _ := plugins.Open(plugins.Options{Home: home, Provided: jshostProvided})
//	cfg, _ := config.LoadHome(home)
//	desired, blocked, gen, _ := s.Desired(cfg) // enabled ∧ trusted ∧ receipt valid
//	// before each activation (replays included):    s.VerifyClosure(d.Record)
//	//                                                 dir, _ := s.Layout().EnsureDataDir(d.ID)
//	// d.Config.Err != nil → fail activation with it (no host call); otherwise send
//	// d.Config.JSON as config and record d.Config.Digest on the owner.
//	// failures, faults, refusals:                    s.AppendDiagnostic(d.ID, plugins.Diagnostic{...})
//	// blocked plugins carry their *ReceiptError:      s.AppendDiagnostic(b.ID, ...)
//	w, _ := plugins.NewWatcher(s); go w.Run(ctx, nil) // then <-w.Changed(): [Store.Desired] gives a Manager what to run.
//
// # Plugins and trust
//
// **What a plugin is.** Either a folder holding `plugin.json` (fields `name`, `version`,
// `description` and `native`, the latter a single entry path or a list of at most
// `plugins.MaxEntries` (64), each `.mjs`, `.js`, `.mts` or `.ts`, a `.ts` entry type-stripped by
// the runtime exactly like `.mts`; `extensions."net.codewhale".native`,
// Codewhale's spelling, works as well), or an npm package (a folder with `package.json`, or a `.tgz`)
// whose entry is a Cordis 4 plugin, so a published DSH plugin installs without a wrapper.
//
// **Identity and paths.** `$CWX_HOME` (`config.EnvHome`) defaults to `~/.cwx`, mode 0700. A plugin's
// id is its manifest name or npm package name, verbatim. On disk it becomes `plugins.DiskName`: the
// id sanitized to `[a-z0-9-]` (at most 64 characters), `-`, and the first 12 hex digits of
// sha256(id).
//
// **Install** takes a folder or a tarball and never fetches or runs anything. It refuses install
// scripts (`preinstall`, `install`, `postinstall`, `prepare`), symlinks that leave the package,
// absolute or `..` tarball entries, hard links, device files, sparse files, more than
// `plugins.MaxFiles` (10,000) entries (files, symlinks and folders; in a tarball every header
// counts, the skipped ones too) or `plugins.MaxBytes` (256 MiB) bytes (an entry's announced size
// is judged at its header, before its type and before a byte of it is read, so a 1 GiB sparse
// entry costs one header), more than `plugins.MaxBytes` + `plugins.MaxFiles` ×
// `plugins.TarOverheadPerEntry` (4 KiB) of uncompressed tar stream (extended headers included),
// and runtime
// dependencies that are neither bundled under `node_modules` inside the package nor provided by the
// host (the list in `nodeshim/jshost`); the refusal lists what is missing. A tarball is unpacked, and
// the package copied, into a private folder under `$CWX_HOME/plugins/.tmp/`, every folder, file and
// symlink created through an `os.Root` opened on that folder: no entry is written through a symlink
// that leaves it, even a chain of links that each look local. `os.Root` does not judge a symlink's
// target, so each target is checked by name and every link resolved on disk afterwards. The folder is
// removed on any failure. The copy is staged read-only under `$CWX_HOME/plugins/<disk
// name>/<closure sha256>/`.
//
// **Closure hash.** sha256 over a fixed prefix (`cwx-closure-v1` and a NUL byte) and, for every file
// sorted by its slash-separated relative path in byte order, its kind (`f` regular file, `l`
// symlink), path, a NUL byte, the content's length as 8 big-endian bytes and the content (a symlink's
// target). Every file counts, `node_modules` included; modes and times do not. The exact layout is in
// `core/plugins/doc.go`.
//
// **Review, trust, enable.** A plugin is installed disabled and untrusted. `cwx plugin review`
// (`plugins.Store.Review`) re-hashes the staged copy and shows the name, version, closure hash, file
// count, each entry as "host code (JavaScript)", what it injects, and the sentence
// `plugins.RunsJavaScript` ("Runs JavaScript on your computer with your user permissions"); it ends
// with a review token bound to the id, the closure hash and the activation policy version. Trusting
// needs that token and writes a receipt; enabling is a separate step. A receipt fails closed:
//
//   - no receipt: not trusted;
//   - `plugins.PolicyVersion` moved since the receipt: capabilities changed, review again;
//   - the installed closure differs from the receipt's, or the staged copy no longer hashes to it:
//     content changed, review again. The whole staged copy is verified before every activation, a
//     replay after a host restart and a planned restart included, not only at install: a plugin that
//     rewrites one of its own modules fails closed at its next activation. `plugins.Store.VerifyClosure`
//     keeps, per staged folder, each file's identity (device and inode), size, mode, modification and
//     change times from its last good hash, and hashes again when any of them moved, a file came or
//     went, or a file changed within two seconds of that hash. `cwx plugin show` runs the same check
//     and reports the receipt as invalid when it fails.
//
// New bytes under an installed id are a new version: the record keeps its enabled flag and its old
// receipt, which no longer matches, so the plugin stops until it is reviewed again.
//
// **Dev receipts.** `cwx plugin dev PATH` (a folder only, never a tarball) trusts without a token:
// `plugins.Store.TrustDev` writes a receipt bound to the staged closure, like any receipt, and to the
// dev session: `plugins.Store.BeginDev` takes an exclusive flock on `$CWX_HOME/dev/<token>.lock`
// (16 random bytes in hex, the file created under a temporary name, locked, then renamed into
// place) and holds it for the session's life, and each receipt records the token (`dev_session`)
// and, for people to read, the pid (`dev_pid`). Every change of the folder is installed again (a new closure,
// verified like any other before its activation, under the same sandbox mounts) and gets a new dev
// receipt, and the Manager of the session activates it under a new generation on its warm host.
// Listings show the plugin as `dev` and its review says so. The receipt holds only while the lock
// its token names is held: `CheckReceipt` probes it with a non-blocking shared flock, which fails
// exactly while the session holds its exclusive one (and two probes at once never mistake each
// other for a session). The kernel releases the lock when the session dies, however it dies, so a
// killed session leaves nothing trusted, and a later process that reuses its pid holds no lock; a
// receipt without a token, a missing, unlocked or symlinked lock file all fail it as not trusted.
// A new session removes the lock files no session holds. At a clean end `Store.EndDev` drops the
// receipt and puts the enabled flag back as it was, and the session releases its lock.
// A person's own receipt for the very same bytes is kept, never replaced by a dev receipt.
//
// **Plugin logs.** A host sends a plugin's `ctx.logger` lines, and its `console.*` calls made while
// its code runs (the JS host follows the owner through async context; a call outside every owner
// stays on stderr as the host's line), as `log` notifications naming the plugin. The CLI keeps them,
// whatever the stderr level (`--log-level`, else `CWX_LOG`, default error), in
// `$CWX_HOME/logs/<disk name>.log`, appended by every process, rotated to `.log.1` past 1 MiB, so a
// plugin holds at most about 2 MiB; they are never part of `state.json`. `cwx logs [PLUGIN] [-f]`
// reads them, through `inert.Strip`.
//
// **Plugin text is inert.** Plugin text must read as what it is. A manifest's name, version,
// description and entry paths, and a tool's or command's description or argument hint, are refused
// at admission (`inert.Check`) when they hold a character of one set: C0 controls other than tab and
// newline, DEL, C1 (U+0080–U+009F), the bidi embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), U+200E, U+200F, U+061C, U+2028, U+2029 and U+FEFF. Everything else a plugin
// produces (results, command text, log lines, diagnostics, and records written before this rule)
// reaches a terminal only through `inert.Strip`, which removes whole escape sequences and the same
// set and keeps joiners such as U+200D; every printer of `core/cli` goes through it. `--json` output
// keeps the text whole, each character of the set written as a `\u` escape (`inert.EscapeJSON`).
//
// **Desired.** A plugin runs when it is enabled, trusted and its receipt is valid. `state.json` under
// `$CWX_HOME` holds every record, receipt, enabled flag and a diagnostics ring of
// `plugins.DiagnosticsRing` entries; it is replaced atomically under an exclusive lock on
// `state.lock`, and a file that does not parse is reported, never reset: a `*CorruptStateError`
// naming it (`errdefs.ErrCorrupt`, exit 3) for a file that is truncated, not JSON, of another
// version, over `plugins.MaxStateBytes` (16 MiB), a symlink, a FIFO or a device, or that holds a
// record cwx could not have written (an id install refuses, a closure or entry hash that is not a
// sha256, an entry path outside the staged copy, a malformed dev receipt); a diagnostic's message
// is cut at `plugins.MaxDiagnosticBytes` (4 KiB) and a write over the bound fails. Its generation counter grows
// with every change to what is desired; a running Manager polls it every `plugins.PollInterval`, so
// `cwx plugin disable` in another terminal revokes the plugin in a running session.
//
// **data_dir.** Each plugin gets `$CWX_HOME/extension-host/data/plugins/<disk name>` (0700), created
// before activation, passed in `ext/activate`, stable across generations and updates, and kept by
// `remove` unless asked to purge. A sandboxed plugin can write `extension-host/data`, so the core
// never follows a symlink below it: creating, checking and tightening a data folder, checking its
// storage and purging it all go through an `os.Root` on `extension-host/data` (`data-builtin` for
// a builtin module), one folder at a time, each `Lstat`ed, refused when it is a symlink or not a
// folder, and confirmed (same device and inode) once opened (`plugins.OpenDirNoFollow`). The
// refusal is a `*plugins.SymlinkError` (`errdefs.ErrRefused`) naming the path and saying to remove
// it; the activation fails with it and nothing is created, changed or deleted at the link's target.
package plugins
