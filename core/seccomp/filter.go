package seccomp

import (
	"encoding/binary"
	"fmt"
	"strings"

	libseccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
)

// Errno is a Linux error number as the filter returns it. The values are Linux's on every
// architecture the filter supports (x86-64 and arm64), whatever the OS cwx was built for.
type Errno uint16

// The errnos the filter returns.
const (
	EPERM  Errno = 1
	EACCES Errno = 13
	ENOSYS Errno = 38
)

func (e Errno) String() string {
	switch e {
	case EPERM:
		return "EPERM"
	case EACCES:
		return "EACCES"
	case ENOSYS:
		return "ENOSYS"
	}
	return fmt.Sprintf("errno %d", uint16(e))
}

// Linux's values (the same on x86-64 and arm64) of the arguments the filter compares.
const (
	tiocsti   = 0x5412 // ioctl: push a byte into a terminal's input queue
	tioclinux = 0x541c // ioctl: the Linux console's subcommands (selection paste among them)
	afUnix    = 1      // socket: the unix-domain family

	cloneNewNS     = 0x00020000
	cloneNewCgroup = 0x02000000
	cloneNewUTS    = 0x04000000
	cloneNewIPC    = 0x08000000
	cloneNewUser   = 0x10000000
	cloneNewPID    = 0x20000000
	cloneNewNet    = 0x40000000
	cloneNewTime   = 0x00000080 // unshare only: in clone's flags this bit is the exit signal's

	// cloneNewAll is every CLONE_NEW* flag clone(2) reads.
	cloneNewAll = cloneNewNS | cloneNewCgroup | cloneNewUTS | cloneNewIPC | cloneNewUser | cloneNewPID | cloneNewNet
)

// personalities are the personality(2) values allowed, as in Docker's default profile:
// PER_LINUX, PER_LINUX32, UNAME26, both of those, and 0xffffffff, which only queries.
var personalities = []uint32{0x0, 0x8, 0x20000, 0x20008, 0xffffffff}

// denied are the calls refused whatever their arguments, with EPERM: the mount family and
// pivot_root, tracing and reading or writing another process's memory, kexec and kernel
// modules, BPF and perf events, the kernel keyrings, userfaultfd and io_uring, joining a
// namespace, accounting, swap, reboot, the clock setters, file handles (open_by_handle_at
// reads any file of a mount by its handle), quotas and the kernel log, I/O port access,
// and the obsolete calls Docker's profile also refuses. A name the architecture lacks is
// skipped (each is in the table of at least one supported architecture).
var denied = []string{
	"mount", "umount", "umount2", "pivot_root", "fsopen", "fsconfig", "fsmount", "fspick",
	"move_mount", "open_tree", "mount_setattr",
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "create_module",
	"bpf", "perf_event_open",
	"keyctl", "add_key", "request_key",
	"userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"setns",
	"acct", "swapon", "swapoff", "reboot",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "stime",
	"open_by_handle_at", "name_to_handle_at",
	"quotactl", "quotactl_fd", "syslog", "lookup_dcookie", "vhangup", "iopl", "ioperm",
	"uselib", "ustat", "sysfs", "_sysctl", "nfsservctl", "get_kernel_syms", "query_module",
	"fanotify_init",
}

// enosys are the calls that fail as if the kernel lacked them, so callers fall back.
var enosys = []string{"clone3"}

// argRule refuses a call by one argument's low 32 bits: when any bit of mask is set, when
// the value is one of values, or (allow) when it is none of them.
type argRule struct {
	call   string
	arg    int // 0-based argument index
	mask   uint32
	values []uint32
	allow  bool // values are the allowed ones, everything else is refused
	errno  Errno
}

// argRules are the calls refused by an argument.
var argRules = []argRule{
	{call: "ioctl", arg: 1, values: []uint32{tiocsti, tioclinux}, errno: EPERM},
	{call: "socket", arg: 0, values: []uint32{afUnix}, errno: EACCES},
	{call: "clone", arg: 0, mask: cloneNewAll, errno: EPERM},
	{call: "unshare", arg: 0, mask: cloneNewAll | cloneNewTime, errno: EPERM},
	{call: "personality", arg: 0, values: personalities, allow: true, errno: EPERM},
}

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

const retErrno = 0x00050000 // SECCOMP_RET_ERRNO; the errno is the low 16 bits

// Rule is one refusal as the surfaces and the tests list it.
type Rule struct {
	Call  string // the system call's name
	When  string // "" for every call, else the argument condition
	Errno Errno
}

// Filter is the assembled program for one architecture.
type Filter struct {
	Arch  string // the Linux architecture name ("x86_64", "aarch64")
	Rules []Rule // what it refuses, in program order
	prog  []bpf.RawInstruction
}

// Build assembles the filter for the architecture cwx runs on, which is the runtime's (the
// library assembles the named calls for this process's architecture only).
func Build() (*Filter, error) {
	info, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	f := &Filter{Arch: info.Name}
	// The architecture first: a call through another ABI has other numbers.
	insns := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: retErrno | uint32(ENOSYS)},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	for _, r := range argRules {
		nr, ok := info.SyscallNames[r.call]
		if !ok {
			return nil, fmt.Errorf("seccomp filter: %s has no %s", info.Name, r.call)
		}
		insns = append(insns, r.assemble(uint32(nr|info.SeccompMask))...)
		f.Rules = append(f.Rules, Rule{Call: r.call, When: r.describe(), Errno: r.errno})
	}
	groups := []libseccomp.SyscallGroup{
		{Names: present(info, denied), Action: libseccomp.ActionErrno | libseccomp.Action(EPERM)},
		{Names: present(info, enosys), Action: libseccomp.ActionErrno | libseccomp.Action(ENOSYS)},
	}
	for _, g := range groups {
		for _, n := range g.Names {
			f.Rules = append(f.Rules, Rule{Call: n, Errno: Errno(g.Action & 0xffff)})
		}
	}
	policy := libseccomp.Policy{DefaultAction: libseccomp.ActionAllow, Syscalls: groups}
	named, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	if f.prog, err = bpf.Assemble(append(insns, named...)); err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	return f, nil
}

// present keeps the names the architecture has.
func present(info *arch.Info, names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := info.SyscallNames[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// assemble is one rule's block. It is entered with the call's number in A and leaves it
// there: a call of another number jumps past the block; a call of this number that the
// rule lets through reloads the number at the block's end.
func (r argRule) assemble(nr uint32) []bpf.Instruction {
	deny := bpf.RetConstant{Val: retErrno | uint32(r.errno)}
	var body []bpf.Instruction
	body = append(body, bpf.LoadAbsolute{Off: uint32(offArgs + 8*r.arg), Size: 4}) // the low half, little-endian
	switch {
	case r.mask != 0:
		body = append(body, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: r.mask, SkipFalse: 1}, deny)
	case r.allow:
		for i, v := range r.values {
			// Skip the rest of the comparisons and the deny to the reload.
			body = append(body, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v, SkipTrue: uint8(len(r.values) - i)})
		}
		body = append(body, deny)
	default:
		for _, v := range r.values {
			body = append(body, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v, SkipFalse: 1}, deny)
		}
	}
	body = append(body, bpf.LoadAbsolute{Off: offNr, Size: 4})
	return append([]bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: uint8(len(body))}}, body...)
}

func (r argRule) describe() string {
	name := fmt.Sprintf("arg%d", r.arg)
	switch {
	case r.mask != 0:
		return fmt.Sprintf("%s & %#x (CLONE_NEW*)", name, r.mask)
	case r.allow:
		return fmt.Sprintf("%s not in %s", name, hexList(r.values))
	default:
		return fmt.Sprintf("%s in %s", name, hexList(r.values))
	}
}

func hexList(vs []uint32) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprintf("%#x", v)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

// Bytes is the program as bubblewrap's --seccomp reads it: struct sock_filter entries
// ({u16 code; u8 jt; u8 jf; u32 k}), little-endian as on every supported architecture.
func (f *Filter) Bytes() []byte {
	out := make([]byte, 0, 8*len(f.prog))
	for _, in := range f.prog {
		out = binary.LittleEndian.AppendUint16(out, in.Op)
		out = append(out, in.Jt, in.Jf)
		out = binary.LittleEndian.AppendUint32(out, in.K)
	}
	return out
}

// Len is the number of instructions (the kernel accepts at most 4096).
func (f *Filter) Len() int { return len(f.prog) }

// Summary is the one line `cwx doctor` prints.
func (f *Filter) Summary() string {
	calls := map[Errno][]string{}
	for _, r := range f.Rules {
		calls[r.Errno] = append(calls[r.Errno], r.Call)
	}
	var parts []string
	for _, e := range []Errno{EPERM, EACCES, ENOSYS} {
		if n := len(calls[e]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d → %s", n, e))
		}
	}
	return fmt.Sprintf("seccomp (%s, %d instructions): default allow; %d calls refused (%s); foreign and x32 ABIs → ENOSYS",
		f.Arch, f.Len(), len(f.Rules), strings.Join(parts, ", "))
}
