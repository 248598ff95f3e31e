package nodeshim

import (
	"fmt"
	"os"
)

// dataSize returns the data segment of pid in bytes (0 when unknown): /proc/<pid>/statm's
// sixth field, data plus stack, the pages RLIMIT_DATA counts.
func dataSize(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	var size, res, shared, text, lib, data uint64
	if _, err := fmt.Sscan(string(b), &size, &res, &shared, &text, &lib, &data); err != nil {
		return 0
	}
	return data * uint64(os.Getpagesize())
}
