// Package grants decides what of a plugin's read grants may be bound into its sandbox
// (ARCHITECTURE.md, “Grants”). config.toml names them ([plugins."<id>"] read, checked for
// syntax by core/config); Resolve canonicalizes each (symlinks resolved) and refuses, with
// the reason, what may never be granted: $CWX_HOME or anything in it, the sandbox's secret
// files and `deny_read`, the kernel's and the system's live trees (/proc, /sys, /dev, /run),
// the credential stores of the user's home, and any path that is or contains a socket or a
// FIFO (a read-only bind does not stop a unix socket's connect). A path refused counts both
// ways: a grant inside a refused path and a grant that contains one are refused alike.
//
// Resolve runs at `cwx config check` and before every start of the plugin's own host, so a
// symlink swapped after the configuration was read is caught at the next start: Check
// compares a fresh resolution with the one the host's sandbox was built from.
package grants
