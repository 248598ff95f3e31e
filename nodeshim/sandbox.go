package nodeshim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// A sandboxed launch plan (ARCHITECTURE.md, “Sandbox”) carries sandboxEnv=bwrap and an argv
// that starts with bubblewrap and its profile, up to "--", followed by the runtime's argv.
// Both names mirror core/runtime (SandboxEnv, SandboxInfoFD), which the shim does not import.
// The shim stays outside the sandbox: it spawns the exec helper, which sets RLIMIT_DATA and
// execs bubblewrap, so the limit binds bubblewrap and the runtime inside it, never the shim.
const (
	sandboxEnv       = "CWX_HOST_SANDBOX"
	sandboxInfoFD    = 5
	sandboxSeccompFD = 6 // core/runtime's SandboxSeccompFD
	// sandboxFindBound bounds the wait for bubblewrap's init to fork the runtime.
	sandboxFindBound = 5 * time.Second
	sandboxScanEvery = 20
)

// sandboxed reports whether env (the plan's) asks for the sandbox.
func sandboxed(env []string) bool {
	for _, kv := range env {
		if kv == sandboxEnv+"=bwrap" {
			return true
		}
	}
	return false
}

// runtimeArgv is the runtime's own argv inside a sandboxed argv (after the first "--").
func runtimeArgv(argv []string) ([]string, error) {
	for i, s := range argv {
		if s == "--" && i+1 < len(argv) {
			return argv[i+1:], nil
		}
	}
	return nil, errors.New("sandboxed launch plan has no runtime after \"--\"")
}

// bwrapInfo is what bubblewrap writes on --info-fd once its child exists.
type bwrapInfo struct {
	ChildPID int `json:"child-pid"`
}

// readSandboxInit reads the pid of bubblewrap's child (the PID namespace's init, in the
// shim's numbering) from the info pipe; bubblewrap closes it once written.
func readSandboxInit(r io.Reader) (int, error) {
	b, err := io.ReadAll(io.LimitReader(r, 4<<10))
	if err != nil {
		return 0, fmt.Errorf("read bubblewrap's info: %w", err)
	}
	var info bwrapInfo
	if err := json.Unmarshal(b, &info); err != nil || info.ChildPID <= 0 {
		return 0, fmt.Errorf("bubblewrap reported no child pid (%q)", strings.TrimSpace(string(b)))
	}
	return info.ChildPID, nil
}

// sandboxRuntime finds the runtime's real pid: the one child of bubblewrap's init, which
// forks it once the mounts are made. It polls each millisecond, with a full scan of /proc
// only every sandboxScanEvery polls, and gives up when the sandbox ended first (waited
// closes) or after sandboxFindBound.
func sandboxRuntime(initPID int, waited <-chan struct{}) (int, error) {
	deadline := time.Now().Add(sandboxFindBound)
	for n := 1; ; n++ {
		if pid := firstChild(initPID, n%sandboxScanEvery == 0); pid > 0 {
			return pid, nil
		}
		select {
		case <-waited:
			return 0, errors.New("the sandbox ended before the runtime started")
		case <-time.After(time.Millisecond):
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("bubblewrap's init (pid %d) started no runtime within %s", initPID, sandboxFindBound)
		}
	}
}

// sandboxStatus maps bubblewrap's exit to the runtime's: bubblewrap exits 128+N when the
// runtime was killed by signal N.
func sandboxStatus(code, sig int) (int, int) {
	if sig == 0 && code > 128 && code <= 128+64 {
		return -1, code - 128
	}
	return code, sig
}

// helperFiles returns the descriptors the exec helper inherits from fd 3 on.
func helperFiles(chanIn, chanOut, info, filter *os.File) []*os.File {
	files := []*os.File{runtimeChanIn - 3: chanIn, runtimeChanOut - 3: chanOut}
	if info != nil {
		files = append(files, info) // fd 5 == sandboxInfoFD
	}
	if info != nil && filter != nil {
		files = append(files, filter) // fd 6 == sandboxSeccompFD
	}
	return files
}
