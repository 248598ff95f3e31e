// Package catalog keeps what each plugin registered at its last successful activation: its
// tools (with descriptions and input schemas), commands, pre-execute hooks and prompt
// sections, so that a listing can be answered and a call routed without starting a host
// (ARCHITECTURE.md, “Catalog”).
//
// An entry is keyed by the plugin id, the closure hash of the staged bytes, the digest of
// the plugin's config and the digest of the JS host bundle. A look-up with any other key
// finds nothing: an entry is never used across a change of bytes, config or bundle. Each
// plugin's entry is one file, $CWX_HOME/catalog/<disk name>.json (mode 0600, the folder
// 0700), replaced atomically (a temporary file, fsynced, renamed over it). A file that does
// not parse, or holds what no activation could have registered, is corrupt: it is logged,
// removed and rebuilt by the plugin's next activation, never used.
//
// The catalog is advice, not authority. It decides which plugins are activated for a call
// and what a listing shows before a host is up; every call still runs against the live
// registry, whose admission rules apply to what the plugin registers when it activates.
//
// # Catalog
//
// Advertise from cache, connect on demand. After every successful activation the Manager writes
// what the owner registered, its tools (name, description, input schema), commands (name,
// description, argument hint), pre-execute hooks and prompt sections, as the plugin's entry in
// `$CWX_HOME/catalog/<disk name>.json` (`core/catalog`, `core/owners`). The folder is 0700 and the
// file 0600, replaced atomically: a temporary file in the folder, fsynced, renamed over the entry,
// then the folder fsynced. An entry that already holds exactly that is not written again.
//
//   - **Key.** An entry is keyed by (plugin id, closure hash, config digest, host bundle digest)
//     (`catalog.Key`), and a look-up finds it only under exactly that key. New bytes, a changed
//     `[plugins."<id>".config]` or another build of the JS host bundle find nothing, and the plugin
//     is activated as if it had never been cached. The runtime (Node or Bun) is not part of the key.
//   - **Corrupt.** A file that does not parse, has unknown fields or data after the entry, names
//     another plugin, or holds what no admitted activation registers (a name off its grammar, text
//     `core/inert` refuses, a schema that is not a JSON object, more than one owner may hold, more
//     than `catalog.MaxFileBytes`, 16 MiB) is logged as a warning, removed and not used; the plugin's
//     next activation writes it again. A file of another format (`catalog.Version`, 1) is not used.
//     A symlink, a FIFO or a device at an entry's path is corrupt in the same way: it is opened
//     without following and without blocking (`core/internal/boundedfile`) and never read.
//   - **Advice, not authority.** The catalog decides what a listing shows before a host is up and
//     which plugins a call activates. The call itself runs against the live registry after the
//     activation, under the admission rules, the claim table, the hooks and the gate, exactly as
//     without a catalog. A forged entry can make a listing wrong or activate a plugin early; it
//     cannot make a call reach a plugin that does not register the name.
package catalog
