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
// by-name install; without one a folder or a tarball records itself, a tarball with its
// sha512), a closure hash the staged copy must have (a lock's, refused before anything is
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
// activation policy version). [Store.Trust] needs that token and writes a [Receipt]. A
// receipt fails closed: [Store.CheckReceipt] (in memory) reports ErrNotTrusted,
// ErrCapabilitiesChanged when [PolicyVersion] moved, ErrContentChanged when the installed
// closure differs; [Store.VerifyClosure] (before every activation, replays after a host
// restart and planned restarts included) checks the whole staged copy and reports
// ErrContentChanged. It re-hashes only a folder in which some file's identity (device and
// inode), size, mode, modification or change time moved since it last hashed to the
// closure, or changed within two seconds of that hash; so a module that rewrites one of its
// own files is caught at the next activation at the cost of a stat per file.
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
//	w, _ := plugins.NewWatcher(s); go w.Run(ctx, nil) // then w.ChangedSince(gen) or <-w.Changed() [Store.Desired] gives a Manager what to run.
package plugins
