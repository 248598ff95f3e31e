package nodeshim

import (
	"strings"
	"testing"
)

func TestMemoryReason(t *testing.T) {
	const limit = 512 << 20
	tests := []struct {
		name      string
		code, sig int
		tail      string
		heap      int
		peak      uint64
		want      string // a substring; "" means no reason
	}{
		{"node heap cap", -1, 6, "<--- JS stacktrace --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n", 256, 0,
			"the runtime exceeded its memory limit: the JavaScript heap reached its cap of 256 MiB (--max-old-space-size; the data limit is RLIMIT_DATA 512 MiB"},
		{"node heap without a cap flag", -1, 6, "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed", 0, 0,
			"the runtime exceeded its memory limit of 512 MiB (RLIMIT_DATA 512 MiB"},
		{"node data limit", -1, 5, "# Fatal process out of memory: Zone", 256, 0, "the runtime exceeded its memory limit of 512 MiB"},
		{"jsc", -1, 11, "ASSERTION FAILED: MemoryExhaustion: Crash intentionally because memory is exhausted.", 0, 0, "memory limit of 512 MiB"},
		{"uncaught range error", 1, 0, "RangeError: Out of memory\n    at hog", 0, 0, "memory limit of 512 MiB"},
		{"uncaught buffer", 1, 0, "RangeError: Array buffer allocation failed", 256, 0, "memory limit of 512 MiB"},
		{"clean exit with oom text", 0, 0, "RangeError: Out of memory", 0, 0, ""},
		{"clean exit below the limit", 0, 0, "", 0, 300 << 20, ""},
		{"clean exit at the limit", 0, 0, "", 0, 511 << 20, "its data segment had reached 511 MiB"},
		{"other crash", -1, 11, "Segmentation fault", 0, 300 << 20, ""},
		{"killed from outside at the limit", -1, 9, "", 0, 511 << 20, ""},
		{"silent crash at the limit", -1, 11, "panic(main thread): Segmentation fault at address 0xBBADBEEF", 0, 511 << 20,
			"the runtime exceeded its memory limit of 512 MiB (RLIMIT_DATA 512 MiB, [extension_host] memory_limit_mib): its data segment had reached 511 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := memoryReason(tt.code, tt.sig, []byte(tt.tail), limit, tt.heap, tt.peak)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

func TestHeapCapMiB(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want int
	}{
		{[]string{"/n/node", "--max-old-space-size=256", "--no-addons", "/b/host.mjs", "--tier=plugin"}, 256},
		{[]string{"/usr/bin/bwrap", "--unshare-pid", "--", "/n/node", "--max-old-space-size=128", "--max-old-space-size=300", "/b/h.mjs"}, 300},
		{[]string{"/b/bun", "--no-install", "/b/h.mjs"}, 0},
		{[]string{"/n/node", "--max-old-space-size=x"}, 0},
	} {
		if got := heapCapMiB(tt.argv); got != tt.want {
			t.Errorf("heapCapMiB(%q) = %d, want %d", tt.argv, got, tt.want)
		}
	}
}
