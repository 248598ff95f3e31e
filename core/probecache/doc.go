// Package probecache keeps, across processes, what an earlier cwx process proved by
// running a start-up probe: that a program is the shim, what a runtime's --version printed,
// which optional flags a Node binary accepts, and that the plugin tier's sandbox runs
// (ARCHITECTURE.md, “Probe cache”). A one-shot command then starts no probe process for
// what nothing has changed since.
//
// An entry is keyed by the identity of what was probed: each binary's resolved path plus
// its device, inode, size, modification and change times ([Identity]), and whatever else
// the probe's answer depends on (the sandbox profile's arguments, the kernel's namespace
// settings). A look-up with any other key finds nothing, so a replaced, touched or moved
// binary is probed again. Only successes are stored, so a failure is always probed again
// and a machine that was fixed is seen at once; an entry older than [DefaultTTL] is not
// used.
//
// The entries live in one file, $CWX_HOME/cache/probes.json (mode 0600, the folder 0700),
// replaced atomically (a temporary file, fsynced, renamed over it). A file that cannot be
// read or does not parse is logged at debug, ignored and rewritten by the next store; it
// is never trusted. Every store reads, changes and replaces the file under an exclusive
// flock(2) of $CWX_HOME/cache/probes.lock, so writers at once (the shim check and the
// runtime's resolution run side by side) keep each other's entries.
//
// The cache is not a security decision: a cached sandbox probe only means bubblewrap is
// expected to work, and the plugin tier is still launched under it, so a sandbox that
// stopped working fails the launch as it did without the cache. `cwx doctor` never reads
// it.
//
// # Probe cache
//
// Five start-up probe processes would otherwise run in every process, a one-shot `cwx tool call` included:
// the shim check (core doc.go, “Embedding”), the runtime's `--version`, Node's two flag probes, and the sandbox
// probe (ARCHITECTURE.md, “Sandbox”). `core/probecache` keeps their successes across processes in
// `$CWX_HOME/cache/probes.json` (0600, the folder 0700, replaced atomically: a temporary file,
// fsynced, renamed, each read-modify-write under an exclusive flock of `probes.lock`, so that
// writers at once keep each other's entries). An entry's key is a digest of the identity of every binary probed, its
// resolved path, device, inode, size, modification and change times (`probecache.Identity`),
// plus what else the answer depends on: for the shim check the program's file; for the sandbox
// probe bubblewrap's and the runtime's, the profile's bubblewrap arguments and the kernel's
// `unprivileged_userns_clone`, `max_user_namespaces` and AppArmor's
// `apparmor_restrict_unprivileged_userns`. A changed key finds nothing and the probe runs again.
// Only successes are stored (a flag the binary refuses with a normal exit is its answer and is
// stored with the others; a timeout is not), so a failure is probed every time and a fixed
// machine is seen at once; an entry is used for at most 24 h (`probecache.DefaultTTL`). A file
// that cannot be read or does not parse (unknown fields, another version, more than 256 entries, a
// symlink, a FIFO or a device, over 1 MiB; read by `core/internal/boundedfile`, which opens without
// blocking and reads at most the bound) is logged at debug, ignored and rewritten, never trusted. The cache decides no containment: a
// cached sandbox success only means the plugin tier is launched under bubblewrap, as a fresh
// success would, and a sandbox that stopped working for a reason outside the key fails that
// launch (under `prefer` too, where a fresh probe would have fallen back to unsandboxed). A
// sandboxed plugin tier that fails to start removes the cached sandbox successes
// (`Layer.forgetSandboxSuccess`, `core/owners`), so the next process probes afresh and
// `prefer` falls back there. `cwx doctor` never reads the cache (its `probes` line and
// `probe_cache` field say so): it is the diagnostic, so every probe runs afresh, and a sandbox
// probe that fails there removes the cached sandbox successes, so the next command probes again.
package probecache
