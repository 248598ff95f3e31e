package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
)

// DefaultProbeTimeout bounds each --version and flag probe when Options.ProbeTimeout is 0.
const DefaultProbeTimeout = 5 * time.Second

// maxProbeOutput caps what a probe keeps of a candidate's output.
const maxProbeOutput = 4 << 10

// probeResult is what running a candidate told us.
type probeResult struct {
	stdout, stderr string
	err            error // nil on exit status 0
	timedOut       bool
}

// probeCommand prepares path with args the way every probe runs a candidate: an empty
// environment, "/" as its working directory, its own process group (killed as a group when
// ctx ends) and its output captured up to maxProbeOutput.
func probeCommand(ctx context.Context, path string, args ...string) (cmd *exec.Cmd, stdout, stderr *capped) {
	cmd = exec.CommandContext(ctx, path, args...)
	cmd.Env = []string{}
	cmd.Dir = "/"
	stdout, stderr = &capped{}, &capped{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd, stdout, stderr
}

// runProbe runs path with args as probeCommand prepares it, stdin from /dev/null, killed
// when timeout passes.
func runProbe(ctx context.Context, timeout time.Duration, path string, args ...string) probeResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, stdout, stderr := probeCommand(ctx, path, args...)
	err := cmd.Run()
	res := probeResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.timedOut = true
	}
	return res
}

// describe turns a failed probe into a reason.
func (r probeResult) describe(what string, timeout time.Duration) string {
	if r.timedOut {
		return fmt.Sprintf("%s did not answer within %s", what, timeout)
	}
	msg := fmt.Sprintf("%s failed: %v", what, r.err)
	if line := firstLine(r.stderr); line != "" {
		msg += ": " + line
	}
	return msg
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(strings.TrimSpace(s), 160)
}

// capped is an io.Writer keeping at most maxProbeOutput bytes.
type capped struct{ buf bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxProbeOutput - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// optionalNodeFlags are the native-code switches a Node binary gets when it accepts them.
var optionalNodeFlags = []string{"--no-experimental-sqlite", "--no-experimental-ffi"}

// flagCache remembers, per binary (path plus file identity), which optional flags it
// accepted, so each binary is probed once per process.
var flagCache = struct {
	sync.Mutex
	m map[binaryKey][]string
}{m: map[binaryKey][]string{}}

// flagProbes counts probes actually run; tests read it to check the cache.
var flagProbes struct {
	sync.Mutex
	n int
}

type binaryKey struct {
	path       string
	dev, ino   uint64
	size, mtim int64
}

func keyOf(path string) (binaryKey, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return binaryKey{}, err
	}
	k := binaryKey{path: path, size: fi.Size(), mtim: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.dev, k.ino = uint64(st.Dev), st.Ino
	}
	return k, nil
}

// acceptedNodeFlags returns which optional flags the Node binary at path accepts
// (`node <flag> --version` exits 0), probing once per binary in this process and, through
// cache, once per binary identity across processes. A flag's refusal (a normal non-zero
// exit) is the binary's answer and is cached with the rest; a probe that timed out, could
// not start or was cut short by ctx is not an answer, and then nothing is cached.
func acceptedNodeFlags(ctx context.Context, cache ProbeCache, timeout time.Duration, path string) []string {
	key, err := keyOf(path)
	if err == nil {
		flagCache.Lock()
		flags, ok := flagCache.m[key]
		flagCache.Unlock()
		if ok {
			return append([]string(nil), flags...)
		}
	}
	ckey, cacheable := "", false
	if cache != nil {
		ckey, cacheable = probecache.Keyed("node-flags", []string{path}, optionalNodeFlags...)
	}
	if cacheable {
		if v, ok := cache.Get(ckey); ok {
			flags := []string{}
			if v != "" {
				flags = strings.Split(v, " ")
			}
			if known(flags) {
				if err == nil { // the next call in this process needs no file
					flagCache.Lock()
					flagCache.m[key] = flags
					flagCache.Unlock()
				}
				return append([]string(nil), flags...)
			}
		}
	}
	flags := []string{}
	answered := true
	for _, f := range optionalNodeFlags {
		flagProbes.Lock()
		flagProbes.n++
		flagProbes.Unlock()
		r := runProbe(ctx, timeout, path, f, "--version")
		var exit *exec.ExitError
		switch {
		case r.err == nil:
			flags = append(flags, f)
		case r.timedOut || !errors.As(r.err, &exit) || exit.ExitCode() < 0:
			answered = false
		}
	}
	if err == nil && ctx.Err() == nil {
		flagCache.Lock()
		flagCache.m[key] = flags
		flagCache.Unlock()
	}
	if cacheable && answered && ctx.Err() == nil {
		cache.Put(ckey, strings.Join(flags, " "))
	}
	return append([]string(nil), flags...)
}

// known reports whether every flag is one of optionalNodeFlags: a cached value naming any
// other is not used.
func known(flags []string) bool {
	for _, f := range flags {
		if !slices.Contains(optionalNodeFlags, f) {
			return false
		}
	}
	return true
}
