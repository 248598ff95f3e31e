package bench

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared"
)

func TestEchoArgsRoundTrip(t *testing.T) {
	for _, o := range []EchoOptions{
		{Transport: shared.DefaultTransport},
		{Transport: shared.Transport{ReadBuffer: 16 << 10, WriteBuffer: 1 << 10, OwnWriteBuffer: true}, GOMAXPROCS: 1},
	} {
		got, err := ParseEchoArgs(o.Args())
		if err != nil || got != o {
			t.Errorf("ParseEchoArgs(%v) = %+v, %v; want %+v", o.Args(), got, err, o)
		}
	}
	for _, bad := range [][]string{nil, {"1", "2", "true"}, {"x", "2", "true", "0"}, {"1", "2", "maybe", "0"}} {
		if _, err := ParseEchoArgs(bad); err == nil {
			t.Errorf("ParseEchoArgs(%q) took it", bad)
		}
	}
}

func TestServePipeEchoCopiesUntilEOF(t *testing.T) {
	in := strings.Repeat("0123456789", 20000) // several reads of its buffer
	var out bytes.Buffer
	if err := ServePipeEcho(strings.NewReader(in), &out); err != nil || out.String() != in {
		t.Fatalf("echoed %d bytes, %v; want %d", out.Len(), err, len(in))
	}
}

func TestCPUTimeNSCountsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before := CPUTimeNS(os.Getpid())
	for i := 0; CPUTimeNS(os.Getpid()) == before && i < 1e7; i++ {
		_ = strings.Repeat("x", 64)
	}
	if after := CPUTimeNS(os.Getpid()); after <= before || before <= 0 {
		t.Fatalf("CPUTimeNS %d then %d: want a positive, growing count", before, after)
	}
	if CPUTimeNS(0) != 0 {
		t.Fatal("CPUTimeNS(0) counted something")
	}
	m := StartCPU(os.Getpid(), 0, -1)
	if pc := m.PerCall(0); pc != (CPUPerCall{}) {
		t.Fatalf("PerCall(0) = %+v, want zeros", pc)
	}
}
