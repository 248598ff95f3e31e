package nodeshim

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/shared"
)

// heapMarkers are what V8 prints when the JavaScript heap reached --max-old-space-size.
var heapMarkers = [][]byte{[]byte("JavaScript heap out of memory"), []byte("near heap limit")}

// oomMarkers are what the runtimes print when an allocation failed for good: V8 when the
// data limit refused a mapping, JavaScriptCore when the heap could not grow, an uncaught
// RangeError (a heap or buffer allocation), and libc's ENOMEM text.
var oomMarkers = [][]byte{
	[]byte("Fatal process out of memory"), []byte("process out of memory"),
	[]byte("MemoryExhaustion"), []byte("memory is exhausted"),
	[]byte("RangeError: Out of memory"), []byte("Cannot allocate memory"),
	[]byte("Array buffer allocation failed"), []byte("std::bad_alloc"),
}

// memoryReason names the limit that ended a runtime which ended on its own of running out of
// memory, or returns "": it died (signal or non-zero status) saying so on its stderr, or its
// sampled data segment (peak, bytes) had reached dataReached of the limit, whatever its status.
// limit is the RLIMIT_DATA the exec helper set; heapMiB is V8's old-space cap from the
// runtime's argv, 0 when it has none.
func memoryReason(code, sig int, tail []byte, limit uint64, heapMiB int, peak uint64) string {
	reached := limit > 0 && float64(peak) >= dataReached*float64(limit)
	if code == 0 && sig == 0 && !reached {
		return "" // a clean exit; at the limit it is not one (JavaScriptCore's host may exit 0 when its channel read fails for memory)
	}
	data := fmt.Sprintf("RLIMIT_DATA %d MiB, [extension_host] memory_limit_mib", limit>>20)
	switch {
	case heapMiB > 0 && containsAny(tail, heapMarkers):
		return fmt.Sprintf("%s: the JavaScript heap reached its cap of %d MiB (--max-old-space-size; the data limit is %s)",
			shared.MemoryLimitPhrase, heapMiB, data)
	case containsAny(tail, heapMarkers) || containsAny(tail, oomMarkers):
		return fmt.Sprintf("%s of %d MiB (%s)", shared.MemoryLimitPhrase, limit>>20, data)
	case reached && !sentFromOutside(sig):
		return fmt.Sprintf("%s of %d MiB (%s): its data segment had reached %d MiB",
			shared.MemoryLimitPhrase, limit>>20, data, peak>>20)
	}
	return ""
}

// sentFromOutside reports whether sig is one a runtime does not raise on itself at the data
// limit (there it aborts, traps or faults, or exits): SIGKILL from a person or the kernel's
// OOM killer, and the termination signals. Such an end is not put down to the limit by the
// sampled size alone.
func sentFromOutside(sig int) bool {
	switch syscall.Signal(sig) {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT:
		return true
	}
	return false
}

func containsAny(b []byte, subs [][]byte) bool {
	for _, s := range subs {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// heapCapMiB is the last --max-old-space-size=N in a launch plan's argv (bubblewrap's own
// flags never take that form), 0 when there is none.
func heapCapMiB(argv []string) int {
	n := 0
	for _, a := range argv {
		if v, ok := strings.CutPrefix(a, "--max-old-space-size="); ok {
			if m, err := strconv.Atoi(v); err == nil && m > 0 {
				n = m
			}
		}
	}
	return n
}

// The shim samples the runtime's data segment (what RLIMIT_DATA bounds) while it runs, so
// that a runtime which crashed at the limit without saying so (JavaScriptCore often ends at
// its deliberate crash address, SIGSEGV at 0xbbadbeef, or aborts, with no out-of-memory
// text) is still reported as having reached it. Below dataNear of the limit it samples every
// dataSlow; nearer, every dataFast, so the last sample before a fast-growing end is close.
const (
	dataSlow = 50 * time.Millisecond
	dataFast = 5 * time.Millisecond
	dataNear = 0.75
	// dataReached is the share of the limit a sampled peak must reach for a crash to be
	// put down to the limit.
	dataReached = 0.90
)

// watchData samples the data segment of p's runtime into p.peakData until the runtime is
// reaped; it closes p.dataDone when it returns (exitReport waits for it).
func (p *proc) watchData() {
	defer close(p.dataDone)
	t := time.NewTimer(dataSlow)
	defer t.Stop()
	for {
		select {
		case <-p.waited:
			return
		case <-t.C:
		}
		d := dataSize(p.pid)
		if d > p.peakData.Load() {
			p.peakData.Store(d)
		}
		next := dataSlow
		if float64(d) >= dataNear*float64(p.limit) {
			next = dataFast
		}
		t.Reset(next)
	}
}

// dataPeak is the largest data segment sampled, once the sampler has ended.
func (p *proc) dataPeak() uint64 {
	if p.dataDone == nil {
		return 0
	}
	<-p.dataDone
	return p.peakData.Load()
}
