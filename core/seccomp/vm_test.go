package seccomp_test

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"

	"github.com/cwx-dev/cwx/core/seccomp"
)

const (
	retAllow = 0x7fff0000
	retErrno = 0x00050000
)

// run evaluates the filter's serialized program, as the kernel would, on one call.
func run(t *testing.T, prog []byte, auditArch uint32, nr int, args ...uint64) uint32 {
	t.Helper()
	raw := make([]bpf.RawInstruction, len(prog)/8)
	for i := range raw {
		p := prog[8*i:]
		raw[i] = bpf.RawInstruction{Op: binary.LittleEndian.Uint16(p), Jt: p[2], Jf: p[3], K: binary.LittleEndian.Uint32(p[4:])}
	}
	insns, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatal("the program does not disassemble")
	}
	vm, err := bpf.NewVM(insns)
	if err != nil {
		t.Fatal(err)
	}
	// struct seccomp_data as a little-endian kernel lays it out (an argument's low half
	// first), each 32-bit word written big-endian because bpf.VM loads words in network
	// order, as from a packet, where the kernel loads them in its own.
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], uint32(nr))
	binary.BigEndian.PutUint32(data[4:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(data[20+8*i:], uint32(a>>32))
	}
	// bpf.VM returns the return value as an int, which for seccomp is the action.
	v, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(v)
}

// TestProgramDecisions evaluates the serialized program on calls
// the live probe cannot make here: another ABI's calls (this kernel may lack i386), the x32
// bit, and each argument rule's edges with and without a high bit.
func TestProgramDecisions(t *testing.T) {
	goarch := runtime.GOARCH
	f, err := seccomp.Build()
	if err != nil {
		t.Fatal(err)
	}
	info, err := arch.GetInfo(goarch)
	if err != nil {
		t.Fatal(err)
	}
	prog, own := f.Bytes(), uint32(info.ID)
	nr := func(name string) int { return info.SyscallNames[name] }
	const hi = uint64(1) << 32
	cases := []struct {
		name string
		arch uint32
		nr   int
		args []uint64
		want uint32
	}{
		{"getpid", own, nr("getpid"), nil, retAllow},
		{"foreign ABI", uint32(arch.I386.ID), 20, nil, retErrno | 38},
		{"another 64-bit ABI", uint32(arch.PPC64LE.ID), nr("getpid"), nil, retErrno | 38},
		{"mount", own, nr("mount"), nil, retErrno | 1},
		{"clone3", own, nr("clone3"), nil, retErrno | 38},
		{"clone thread", own, nr("clone"), []uint64{0x3d0f00}, retAllow},
		{"clone newuser", own, nr("clone"), []uint64{0x10000000 | 17}, retErrno | 1},
		{"clone newns high", own, nr("clone"), []uint64{hi | 0x20000}, retErrno | 1},
		{"unshare files", own, nr("unshare"), []uint64{0x400}, retAllow},
		{"unshare newtime", own, nr("unshare"), []uint64{0x80}, retErrno | 1},
		{"ioctl tiocsti", own, nr("ioctl"), []uint64{0, 0x5412}, retErrno | 1},
		{"ioctl tiocsti high", own, nr("ioctl"), []uint64{0, hi | 0x5412}, retErrno | 1},
		{"ioctl tioclinux high", own, nr("ioctl"), []uint64{0, 0xffffffff00000000 | 0x541c}, retErrno | 1},
		{"ioctl fionread", own, nr("ioctl"), []uint64{0, 0x541b}, retAllow},
		{"socket unix", own, nr("socket"), []uint64{1, 1}, retErrno | 13},
		{"socket unix high", own, nr("socket"), []uint64{hi | 1, 1}, retErrno | 13},
		{"socket inet", own, nr("socket"), []uint64{2, 1}, retAllow},
		{"socketpair unix", own, nr("socketpair"), []uint64{1, 1}, retAllow},
		{"personality query", own, nr("personality"), []uint64{0xffffffff}, retAllow},
		{"personality linux32", own, nr("personality"), []uint64{0x8}, retAllow},
		{"personality read-implies-exec", own, nr("personality"), []uint64{0x0400000}, retErrno | 1},
		{"personality high", own, nr("personality"), []uint64{hi | 0x0400000}, retErrno | 1},
	}
	if goarch == "amd64" {
		cases = append(cases, struct {
			name string
			arch uint32
			nr   int
			args []uint64
			want uint32
		}{"x32", own, 0x40000000 | 39, nil, retErrno | 38})
	}
	for _, c := range cases {
		if got := run(t, prog, c.arch, c.nr, c.args...); got != c.want {
			t.Errorf("%s: action %#x, want %#x", c.name, got, c.want)
		}
	}
}
