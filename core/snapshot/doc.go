// Package snapshot builds, keeps and opens the Node startup snapshot of the JS extension host
// (ARCHITECTURE.md, “Host snapshot”).
//
// [Prepare] finds the snapshot for one Node binary, snapshot entry and set of flags, or builds
// it: `node <build flags> --snapshot-blob <tmp> --build-snapshot <entry>` with an empty
// environment (NODE_OPTIONS empty), under an exclusive lock of the key so that two cores
// starting at once build it once, then renamed into place read-only and recorded with its
// sha256 in a manifest written after it (both renames atomic). The folder is
// `$CWX_HOME/cache/snapshots` (mode 0700, checked to be a directory of this user, not a
// symlink): outside `extension-host/data` and never mounted into a sandbox, so no plugin can
// write it. The blob is 0444 so that a sandbox uid can read it through its descriptor.
//
// The key is the sha256 of: the runtime's identity (its resolved path, device, inode, size,
// modification and change times, probecache.Identity) and its version; the snapshot entry's
// sha256; the build flags; and the exact flags of the runs. A runtime upgrade, a new bundle or
// a change of flags gives a new key, so a new snapshot, and an old one is never read by a
// runtime it was not built by.
//
// [Blob.Open] opens the blob without following a symlink and checks that it is a regular file
// of the recorded size; [Blob.Verify] hashes what that descriptor holds, at its own offsets,
// while the shim starts: the runtime reads exactly the bytes that were verified (the shim
// passes the descriptor on, and Node opens /proc/self/fd/N). A blob whose size or sha256
// differs is never used: Open or Verify fails with [ErrVerify], removes the blob and its
// manifest so that the next Prepare builds it again, and the host starts from the bundle. The cost of the hash is logged at debug level
// with each open (BENCHMARKS.md, “Host snapshot”).
//
// Only Node on Linux gets a snapshot. Bun has no startup snapshot; its bytecode cache would pay
// (BENCHMARKS.md, “Host snapshot”) and is not built.
package snapshot
