// Package seccomp builds the plugin tier's system-call filter (ARCHITECTURE.md, “Sandbox”):
// a classic BPF program that bubblewrap installs on the runtime with --seccomp before it
// execs it, serialized as the array of 8-byte struct sock_filter that bubblewrap reads.
//
// The model is Docker's default profile turned around: every call is allowed except a
// deny list of the calls a contained JavaScript runtime never needs and an escape would
// (mounts, namespaces, tracing, kernel modules and kexec, BPF, keyrings, io_uring, clocks,
// swap and reboot, terminal injection, unix sockets). Each denied call fails with an errno,
// never a signal, so a plugin sees an ordinary error: EPERM for most, EACCES for
// socket(AF_UNIX, …), and ENOSYS for clone3 so that libc and libuv fall back to clone,
// whose namespace flags are filtered.
//
// Arguments are compared on their low 32 bits only: the kernel reads an ioctl request, a
// socket family, clone and unshare flags and a personality as 32-bit values, so a filter
// that compared all 64 bits could be passed by setting a high bit. Calls from another
// architecture's ABI (int 0x80 on x86-64) and the x32 ABI fail with ENOSYS.
//
// The list of named calls is assembled by github.com/elastic/go-seccomp-bpf, which maps
// names to numbers per architecture; the argument checks and the foreign-architecture
// check are written here as BPF directly, because that library compares arguments on all
// 64 bits and lets calls of a foreign architecture through.
package seccomp
