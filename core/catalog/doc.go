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
package catalog
