// Package seccomptest calls, for real, every system call the plugin tier's seccomp filter
// refuses, plus a few it must let through, and reports the errno of each: the proof, in the
// tests of core/seccomp and core/runtime, that the filter refuses what it lists when
// bubblewrap installs it, and that the same calls succeed or fail otherwise without it.
//
// A test binary becomes the probe when [Env] is set (call [Main] first in TestMain); it
// prints a [Report] as JSON on stdout and exits. With Env set to "self:<file>" it first
// installs the filter read from file on itself (no_new_privs, all threads), so a test can
// compare the same calls with and without the filter outside any sandbox.
//
// Each call's arguments are chosen so that, without the filter, the kernel fails it or
// does nothing lasting: invalid flags, a missing path, a bad descriptor, flag combinations
// the kernel rejects before creating anything.
package seccomptest
