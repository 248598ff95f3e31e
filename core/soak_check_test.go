package core

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// proc is one process as /proc/<pid>/stat tells it.
type proc struct{ pid, ppid, pgid int }

// readProc parses /proc/<pid>/stat; ok is false for a process gone or a zombie.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp ...
	if len(f) < 3 || f[0] == "Z" {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return proc{pid: pid, ppid: ppid, pgid: pgid}, true
}

// markedProcs lists the live processes this test run started (testenv's marker).
func markedProcs() []proc {
	var out []proc
	for _, line := range testenv.MarkedProcesses(testenv.Marker()) {
		pid, err := strconv.Atoi(strings.Fields(line)[0])
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// descendsFrom reports whether p is root or one of its descendants.
func descendsFrom(p proc, root int) bool {
	for range 64 {
		if p.pid == root {
			return true
		}
		if p.ppid <= 1 {
			return false
		}
		var ok bool
		if p, ok = readProc(p.ppid); !ok {
			return false
		}
	}
	return false
}

// staleProcs tracks processes that belong to no current incarnation since when.
type staleProcs struct {
	mu    sync.Mutex
	since map[int]time.Time
}

// checkProcesses finds every marked process that is not, for any host of hosts, the ready
// incarnation's shim, runtime, a member of the runtime's process group or a descendant of
// the shim. One that stays so for soakStaleBound is a survivor of an earlier incarnation: a
// finding.
func (r *soakRun) checkProcesses(hosts []TierStatus, now time.Time) {
	r.stale.mu.Lock()
	defer r.stale.mu.Unlock()
	if r.stale.since == nil {
		r.stale.since = map[int]time.Time{}
	}
	seen := map[int]bool{}
	for _, p := range markedProcs() {
		if slices.ContainsFunc(hosts, func(st TierStatus) bool { return belongsTo(p, st) }) {
			continue
		}
		seen[p.pid] = true
		first, ok := r.stale.since[p.pid]
		if !ok {
			r.stale.since[p.pid] = now
			continue
		}
		if now.Sub(first) > soakStaleBound {
			r.counts.finding("process %d (ppid %d, pgid %d) of no current incarnation survived %v", p.pid, p.ppid, p.pgid, now.Sub(first).Round(time.Second))
			delete(r.stale.since, p.pid) // reported once
		}
	}
	for pid := range r.stale.since {
		if !seen[pid] {
			delete(r.stale.since, pid)
		}
	}
}

// belongsTo reports whether p is a process of st's ready incarnation.
func belongsTo(p proc, st TierStatus) bool {
	if st.State != supervisor.StateReady || st.ShimPID <= 0 {
		return false
	}
	return p.pid == st.RuntimePID || (st.RuntimePGID > 0 && p.pgid == st.RuntimePGID) || descendsFrom(p, st.ShimPID)
}

// heapSamples are the core's live heap after a GC, sampled during the soak.
type heapSamples struct {
	mu sync.Mutex
	b  []uint64
}

func (h *heapSamples) sample() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.mu.Lock()
	h.b = append(h.b, ms.HeapAlloc)
	h.mu.Unlock()
}

// bounded compares the median of the last quarter of the samples with the first quarter's:
// more than twice it plus 64 MiB is growth without bound.
func (h *heapSamples) bounded() (first, last uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.b)
	if n < 8 {
		return 0, 0, true
	}
	first, last = median(h.b[:n/4]), median(h.b[n-n/4:])
	return first, last, last <= 2*first+64<<20
}

func median(s []uint64) uint64 {
	c := append([]uint64(nil), s...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c[len(c)/2]
}

// finalChecks: every call returned once, no finding, no process of an earlier
// incarnation alive, the state file valid, the heap bounded.
func (r *soakRun) finalChecks(heap *heapSamples) {
	t, c := r.t, r.counts
	c.mu.Lock()
	if c.started != c.returned {
		t.Errorf("%d calls started, %d returned", c.started, c.returned)
	}
	for _, f := range c.findings {
		t.Errorf("finding: %s", f)
	}
	c.mu.Unlock()
	cur := map[genKey]bool{}
	for _, st := range r.pluginHosts() {
		cur[keyOf(st)] = true
	}
	incarnations := 0
	r.gens.Range(func(k, v any) bool {
		incarnations++
		st := v.(TierStatus)
		if cur[k.(genKey)] {
			return true
		}
		for _, p := range markedProcs() {
			if p.pid == st.ShimPID || p.pid == st.RuntimePID || (st.RuntimePGID > 0 && p.pgid == st.RuntimePGID) {
				t.Errorf("process %d of incarnation %d (shim %d, runtime %d, pgid %d) is alive", p.pid, st.Generation, st.ShimPID, st.RuntimePID, st.RuntimePGID)
			}
		}
		return true
	})
	t.Logf("  incarnations observed: %d", incarnations)
	raw, err := os.ReadFile(r.e.store.StatePath())
	if err != nil || !json.Valid(raw) {
		t.Errorf("state file %s: %v (valid JSON: %v)", r.e.store.StatePath(), err, json.Valid(raw))
	}
	if _, err := r.e.store.State(); err != nil {
		t.Errorf("state file does not load: %v", err)
	}
	first, last, ok := heap.bounded()
	t.Logf("  heap after GC: first-quarter median %d KiB, last-quarter median %d KiB", first>>10, last>>10)
	if !ok {
		t.Errorf("the core's heap grew from %d KiB to %d KiB", first>>10, last>>10)
	}
	if h := r.m.Host(protocol.TierPlugin); h.State != supervisor.StateReady {
		t.Logf("  the tier ended %s", h.State)
	}
}

// checkNoMarkedProcess: after Close, no process of the run is left (within soakStaleBound).
func (r *soakRun) checkNoMarkedProcess() {
	if !eventuallyNoFatal(soakStaleBound, func() bool { return len(markedProcs()) == 0 }) {
		r.t.Errorf("processes left after Close: %v", testenv.MarkedProcesses(testenv.Marker()))
	}
}

// TestSoakFindsSurvivor shows the soak's process check at work: a marked process that
// belongs to no ready incarnation is a finding once it outlives soakStaleBound, and not
// before; one that descends from the ready incarnation's shim is never one.
func TestSoakFindsSurvivor(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Start returns once execve has begun; the kernel sets up the new image's environment
	// (and so the marker /proc/<pid>/environ shows) a moment later, longer on a loaded
	// machine. Wait until the sleep is seen as marked, or the cases below see nothing.
	visible := func() bool {
		for _, p := range markedProcs() {
			if p.pid == cmd.Process.Pid {
				return true
			}
		}
		return false
	}
	if !eventuallyNoFatal(10*time.Second, visible) {
		t.Fatalf("the sleep (pid %d) never showed the run's marker in /proc/%d/environ", cmd.Process.Pid, cmd.Process.Pid)
	}
	self := os.Getpid() // the sleep descends from this process
	tests := []struct {
		name     string
		st       TierStatus
		after    time.Duration
		findings int
	}{
		{"restarting, within the bound", TierStatus{TierStatus: supervisor.TierStatus{State: supervisor.StateStarting}}, soakStaleBound / 2, 0},
		{"restarting, past the bound", TierStatus{TierStatus: supervisor.TierStatus{State: supervisor.StateStarting}}, soakStaleBound + time.Second, 1},
		{"failed, past the bound", TierStatus{TierStatus: supervisor.TierStatus{State: supervisor.StateFailed}}, soakStaleBound + time.Second, 1},
		{"descendant of the ready shim", TierStatus{TierStatus: supervisor.TierStatus{State: supervisor.StateReady, ShimPID: self}}, soakStaleBound + time.Second, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &soakRun{counts: &soakCounts{}}
			now := time.Now()
			r.checkProcesses([]TierStatus{tc.st}, now)
			r.checkProcesses([]TierStatus{tc.st}, now.Add(tc.after))
			var mine int
			for _, f := range r.counts.findings {
				if strings.Contains(f, fmt.Sprintf("process %d ", cmd.Process.Pid)) {
					mine++
				}
			}
			if mine != tc.findings {
				t.Fatalf("%d findings for the sleep (pid %d), want %d: %v", mine, cmd.Process.Pid, tc.findings, r.counts.findings)
			}
		})
	}
}
