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
package bundle
