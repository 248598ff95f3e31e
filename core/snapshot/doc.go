// Package snapshot builds, keeps and verifies what a JS extension host starts from instead of
// its bundle as it is: the Node startup snapshot, and the Bun bytecode cache (ARCHITECTURE.md,
// “Host snapshot”). [For] says which one a runtime gets, or why it gets none.
//
// [Prepare] finds the snapshot for one Node binary, snapshot entry and set of flags, or builds
// it: `node <build flags> --snapshot-blob <tmp> --build-snapshot <entry>` with an empty
// environment (NODE_OPTIONS empty), under an exclusive lock of the key so that two cores
// starting at once build it once, then renamed into place read-only and recorded with its
// sha256 in a manifest written after it (both renames atomic). The folder is
// `$CWX_HOME/cache/snapshots` (mode 0700, checked to be a directory of this user, not a
// symlink): outside `extension-host/data` and never mounted writable into a sandbox (only a Bun
// host's bytecode folder is bound, read-only), so no plugin can write it. The blob is 0444 so that a sandbox uid can read it through its descriptor.
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
// # Bun's bytecode cache
//
// [PrepareBytecode] writes the Bun entry (the host as one CommonJS script) into a fresh folder
// `<key>.bun` of the same directory and runs `bun build --bytecode --format=cjs --target=bun`
// there with an empty environment, under the key's lock: Bun writes `entry.js` (its CommonJS
// build, the entry's path baked in as __filename, so host/hello reports the entry's digest) and
// `entry.js.jsc`, JavaScriptCore bytecode for exactly that Bun build. The files become 0444 and
// the folder 0755 (the sandbox binds it read-only; its user can still remove it), and a manifest
// `<key>.bun.json` with both sha256s and sizes is written last: a folder without one is never used and is replaced by the
// next build. [BytecodeKey] is [Key]'s with another prefix and no build flags of Node.
// [Bytecode.Verify] hashes both through descriptors that refuse a symlink before each start; Bun
// opens them by path, so there is no descriptor to hand on (ARCHITECTURE.md says what that
// leaves). A mismatch wraps [ErrVerify] and removes the manifest.
//
// Only Linux gets either: Node reads its descriptor through /proc, and the bytecode cache is
// kept to what is tested.
package snapshot
