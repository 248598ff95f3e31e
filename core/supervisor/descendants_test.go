package supervisor

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// escapeKinds are the processes testdata/fakehosts/escapes.mjs starts outside the runtime's
// process group.
var escapeKinds = []string{"detached", "setsid", "double_fork", "ignores_term"}

// TestNoDescendantOutlivesTheHost checks that every process a host started is gone soon
// after the host ends, however it left the runtime's group and however the host ended: the
// shim is a child subreaper and sweeps what re-parents to it (ARCHITECTURE.md, “Processes”).
// It logs, for each escape, the time from the runtime's end to the escape's.
func TestNoDescendantOutlivesTheHost(t *testing.T) {
	ends := []struct {
		name string
		end  func(tr *TierRuntime)
	}{
		{"one_shot_stop", func(tr *TierRuntime) { tr.Stop() }},
		{"planned_restart", func(tr *TierRuntime) {
			for range DefaultDirtyLimit {
				tr.ReportDirtyTeardown()
			}
		}},
		{"crash", func(tr *TierRuntime) { _ = syscall.Kill(tr.Status().RuntimePID, syscall.SIGKILL) }},
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			for _, e := range ends {
				t.Run(e.name, func(t *testing.T) {
					tr := newTier(t, rt, "escapes", nil)
					if _, err := ensure(t, tr); err != nil {
						t.Fatal(err)
					}
					host := tr.Status().RuntimePID
					esc := awaitEscapes(t, host)
					done := watchSweep(t, host, esc)
					e.end(tr)
					<-done
				})
			}
			t.Run("core_killed", func(t *testing.T) {
				core, _, host := startHelperCore(t, rt, "escapes")
				esc := awaitEscapes(t, host)
				done := watchSweep(t, host, esc)
				_ = core.Process.Signal(syscall.SIGKILL)
				<-done
			})
		})
	}
}

// awaitEscapes waits for every escape of the host with pid host and returns their pids.
func awaitEscapes(t *testing.T, host int) map[string]int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		found := escapesOf(host)
		if len(found) == len(escapeKinds) {
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %d started %v, want one process of each of %v", host, found, escapeKinds)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// watchSweep watches, from now on, the runtime and every escape, and reports on done (closed
// after the test's verdict) how long after the runtime each escape went. It fails the test
// when anything is alive 5 s after the watch began.
func watchSweep(t *testing.T, host int, esc map[string]int) <-chan struct{} {
	done := make(chan struct{})
	begin := time.Now()
	go func() {
		defer close(done)
		hostAt, gone, ok := pollGone(host, esc, begin.Add(5*time.Second))
		if !ok {
			t.Errorf("5 s after the host's end: runtime gone=%v, escapes gone %v of %v", hostAt >= 0, gone, esc)
			return
		}
		kinds := make([]string, 0, len(gone))
		for k := range gone {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var b strings.Builder
		for _, k := range kinds {
			fmt.Fprintf(&b, " %s=%v", k, max(gone[k]-hostAt, 0).Round(time.Millisecond))
		}
		t.Logf("runtime gone %v after the end; escapes gone after the runtime:%s", hostAt.Round(time.Millisecond), b.String())
	}()
	return done
}

// pollGone polls until the runtime and every escape are gone or deadline passes; it returns
// when each went, measured from the start of the poll (hostAt -1 while the runtime lives).
func pollGone(host int, esc map[string]int, deadline time.Time) (time.Duration, map[string]time.Duration, bool) {
	begin := time.Now()
	hostAt := time.Duration(-1)
	gone := map[string]time.Duration{}
	for {
		at := time.Since(begin)
		if hostAt < 0 && !alive(host) {
			hostAt = at
		}
		for kind, pid := range esc {
			if _, done := gone[kind]; !done && !alive(pid) {
				gone[kind] = at
			}
		}
		if hostAt >= 0 && len(gone) == len(esc) {
			return hostAt, gone, true
		}
		if time.Now().After(deadline) {
			return hostAt, gone, false
		}
		time.Sleep(time.Millisecond)
	}
}

// escapesOf scans /proc for live processes tagged CWX_ESCAPE=<kind>-<host>.
func escapesOf(host int) map[string]int {
	suffix := "-" + strconv.Itoa(host)
	out := map[string]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		for _, kv := range bytes.Split(env, []byte{0}) {
			v, ok := strings.CutPrefix(string(kv), "CWX_ESCAPE=")
			if kind, mine := strings.CutSuffix(v, suffix); ok && mine {
				out[kind] = pid
			}
		}
	}
	return out
}

// startHelperCore runs helperCore (a core in its own process) on the named fake host and
// returns it with the shim's and the runtime's pids; the test's cleanup kills it if it still runs.
func startHelperCore(t *testing.T, rt testenv.Runtime, host string) (cmd *exec.Cmd, shimPID, rtPID int) {
	t.Helper()
	path, digest := fakeHost(t, host)
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		helperCoreEnv+"=1", "CWX_HELPER_RUNTIME="+rt.Name, "CWX_HELPER_RUNTIME_PATH="+rt.Path,
		"CWX_HELPER_HOST="+path, "CWX_HELPER_DIGEST="+digest, "CWX_HELPER_SHIM="+shimBin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper core: %v; stderr: %s", err, stderr.String())
	}
	if _, err := fmt.Sscanf(line, "READY %d %d", &shimPID, &rtPID); err != nil {
		t.Fatalf("helper core said %q: %v", line, err)
	}
	return cmd, shimPID, rtPID
}
