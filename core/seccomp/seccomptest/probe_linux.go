package seccomptest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/sys/unix"

	"github.com/cwx-dev/cwx/core/seccomp"
	"github.com/cwx-dev/cwx/core/seccomp/internal/abi"
)

// high is a bit above the low 32: the kernel ignores it where it reads a 32-bit value, so a
// filter that compared 64 bits would miss the call.
const high = uintptr(1) << 32

// special are the arguments of the calls that need more than the default (-1, then zeros).
func special(devNull int, b *byte) map[string][6]uintptr {
	return map[string][6]uintptr{
		// Invalid architecture bits: refused before a segment is read (nr_segments 0 with
		// valid flags would unload a loaded image).
		"kexec_load": {0, 0, 0, 0xffff0000},
		// CLONE_NEWNS|CLONE_FS is refused before any task is made.
		"clone": {high | 0x00020000 | 0x200},
		// An unknown high flag: EINVAL before anything is unshared.
		"unshare":     {1<<40 | 0x00020000},
		"ioctl":       {uintptr(devNull), high | 0x5412, uintptr(unsafe.Pointer(b))},
		"socket":      {high | unix.AF_UNIX, unix.SOCK_STREAM, 0},
		"personality": {0x0040000}, // ADDR_NO_RANDOMIZE: harmless in the probe
	}
}

func probe(mode string) (Report, error) {
	if file, ok := strings.CutPrefix(mode, "self:"); ok {
		prog, err := os.ReadFile(file)
		if err != nil {
			return Report{}, err
		}
		if err := install(prog); err != nil {
			return Report{}, fmt.Errorf("install the filter: %w", err)
		}
	} else if mode != "plain" {
		return Report{}, fmt.Errorf("mode %q is neither plain nor self:<file>", mode)
	}
	f, err := seccomp.Build()
	if err != nil {
		return Report{}, err
	}
	info, err := arch.GetInfo("")
	if err != nil {
		return Report{}, err
	}
	devNull, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return Report{}, err
	}
	defer unix.Close(devNull)
	var b byte = 'x'
	args := special(devNull, &b)
	rep := Report{UID: os.Getuid(), Caps: capLines(), Results: map[string]int{}}
	for _, r := range f.Rules {
		nr := info.SyscallNames[r.Call]
		a, ok := args[r.Call]
		if !ok {
			a = [6]uintptr{^uintptr(0)}
		}
		rep.Results[r.Call] = call(uintptr(nr), a)
	}
	rep.Results["ioctl:TIOCLINUX"] = call(unix.SYS_IOCTL, [6]uintptr{uintptr(devNull), high | 0x541c, uintptr(unsafe.Pointer(&b))})
	// What must still work.
	rep.Results["allow:getpid"] = call(unix.SYS_GETPID, [6]uintptr{})
	var sv [2]int32
	rep.Results["allow:socketpair"] = call(unix.SYS_SOCKETPAIR, [6]uintptr{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0, uintptr(unsafe.Pointer(&sv))})
	rep.Results["allow:socket-inet"] = call(unix.SYS_SOCKET, [6]uintptr{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0})
	rep.Results["allow:ioctl-fionread"] = call(unix.SYS_IOCTL, [6]uintptr{uintptr(sv[0]), unix.TIOCINQ, uintptr(unsafe.Pointer(&sv[1]))})
	rep.Results["allow:personality-query"] = call(unix.SYS_PERSONALITY, [6]uintptr{0xffffffff})
	rep.Results["allow:unshare-files"] = call(unix.SYS_UNSHARE, [6]uintptr{unix.CLONE_FILES})
	rep.Results["allow:thread"] = newThread()
	if r, ok := abi.ForeignGetpid(); ok {
		rep.Results["abi:foreign"] = errnoOf(r)
	} else {
		rep.Skipped = append(rep.Skipped, "abi:foreign")
	}
	if abi.Supported { // x86-64 only: the x32 ABI is x86-64's
		rep.Results["abi:x32"] = call(0x40000000|39, [6]uintptr{})
	} else {
		rep.Skipped = append(rep.Skipped, "abi:x32")
	}
	return rep, nil
}

// capLines is the capability sets of /proc/self/status but the bounding set, one per line.
func capLines() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, k := range []string{"CapInh:", "CapPrm:", "CapEff:", "CapAmb:"} {
			if strings.HasPrefix(l, k) {
				out = append(out, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return strings.Join(out, "\n")
}

// call makes the system call and returns its errno (0 on success); a descriptor it
// returned is closed.
func call(nr uintptr, a [6]uintptr) int {
	r, _, e := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if e != 0 {
		return int(e)
	}
	if (nr == unix.SYS_SOCKET || nr == unix.SYS_USERFAULTFD) && int(r) > 2 {
		_ = unix.Close(int(r))
	}
	return 0
}

// errnoOf reads a raw kernel result: -errno or a value.
func errnoOf(r int64) int {
	if r < 0 && r > -4096 {
		return int(-r)
	}
	return 0
}

// newThread starts an OS thread (clone with CLONE_THREAD, after clone3 failed) and
// returns 0 once it ran.
func newThread() int {
	done := make(chan int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		done <- unix.Gettid()
	}()
	if <-done > 0 {
		return 0
	}
	return int(unix.ESRCH)
}

// install puts the filter on every thread of the process.
func install(prog []byte) error {
	if len(prog) == 0 || len(prog)%8 != 0 {
		return fmt.Errorf("a filter of %d bytes is not a whole number of instructions", len(prog))
	}
	insns := make([]unix.SockFilter, len(prog)/8)
	for i := range insns {
		p := prog[8*i:]
		insns[i] = unix.SockFilter{
			Code: uint16(p[0]) | uint16(p[1])<<8, Jt: p[2], Jf: p[3],
			K: uint32(p[4]) | uint32(p[5])<<8 | uint32(p[6])<<16 | uint32(p[7])<<24,
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(insns)), Filter: &insns[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return e
	}
	return nil
}
