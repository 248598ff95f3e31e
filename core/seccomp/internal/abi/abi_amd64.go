package abi

import "runtime/debug"

// Supported reports whether this architecture has another ABI to call through.
const Supported = true

// ForeignGetpid calls getpid through the i386 ABI (number 20, int 0x80) and returns what
// the kernel left in the result register: the pid, or -errno. ok is false when the kernel
// has no i386 ABI (int 0x80 then faults before any system call, so no filter sees it).
func ForeignGetpid() (r int64, ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			r, ok = 0, false
		}
	}()
	return int80(20), true
}

func int80(trap uint64) int64
