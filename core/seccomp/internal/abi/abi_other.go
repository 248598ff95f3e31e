//go:build !amd64

package abi

// Supported reports whether this architecture has another ABI to call through.
const Supported = false

// ForeignGetpid is not available on this architecture (ok is false).
func ForeignGetpid() (int64, bool) { return 0, false }
