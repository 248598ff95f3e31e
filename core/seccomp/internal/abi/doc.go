// Package abi makes a system call through another ABI than the process's own, for the
// seccomp package's tests: on x86-64, int 0x80 enters the kernel as a 32-bit (i386) call,
// which the plugin tier's filter must refuse. Elsewhere it reports that it cannot.
package abi
