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
package probecache
