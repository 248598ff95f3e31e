package owners

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/probecache"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared"
	"github.com/hashicorp/go-hclog"
)

// The shim check (core doc.go, “Embedding”): the Manager starts each tier by running
// Options.ShimPath (this executable when empty) as `<program> nodeshim --tier=<tier>` with
// go-plugin's cookie set, and only a main that hands that invocation to nodeshim.Main first
// becomes the shim. A program that does not runs its own main instead, and go-plugin, the
// shim and the supervisor then fail one after another with messages that do not say why
// ("Unrecognized remote plugin message", a missing $HOME, "crash budget exhausted"). So Open
// runs the program once as `<program> nodeshim --tier=cwx-probe`: nodeshim.Main refuses that
// tier with its own usage line and status 2, anything else is not the shim.
const (
	shimProbeTier = "cwx-probe"
	// shimProbeReply is the start of what nodeshim.Main prints for an unknown tier.
	shimProbeReply = "cwx nodeshim: --tier must be plugin or builtin"
	// shimProbeEnv marks the probe's process: an Open there is a main that ran instead of
	// the shim, and fails at once instead of probing again.
	shimProbeEnv = "CWX_SHIM_PROBE"
	// shimProbeDeadline bounds the probe; a program that does not dispatch may not end.
	shimProbeDeadline = 10 * time.Second
	// shimProbeOutput bounds what the probe keeps of the program's output.
	shimProbeOutput = 4096
)

// shimChecks caches the probe's answer per shim path for the life of the process: a
// program that opens many Managers probes once.
var shimChecks sync.Map // string → *shimCheck

type shimCheck struct {
	once sync.Once
	err  error
}

// probeCache is the probe cache of home (ARCHITECTURE.md, “Probe cache”): the shim check,
// the runtime's --version and flag probes and the sandbox probe reuse an earlier process's
// success while the binaries and settings they probed are unchanged.
func probeCache(home string, log hclog.Logger) *probecache.Cache {
	return probecache.Open(home, probecache.Options{Logger: log})
}

// checkShim reports whether path, run as the shim, reaches nodeshim.Main. ctx bounds the
// wait; a probe cut short by ctx is not cached. A success is also kept in cache under the
// identity of path's file, so a later process running the same program skips the probe.
func checkShim(ctx context.Context, path string, cache runtime.ProbeCache) error {
	if os.Getenv(shimProbeEnv) != "" {
		return fmt.Errorf("%w: this process was started as the shim (`%s`) and ran the program's own main; %s", ErrNoShim, shared.Subcommand, shimAdvice)
	}
	path, err := shimProgram(path)
	if err != nil {
		return err
	}
	for {
		v, _ := shimChecks.LoadOrStore(path, &shimCheck{})
		c := v.(*shimCheck)
		c.once.Do(func() { c.err = probeShimCached(ctx, path, cache) })
		if !errors.Is(c.err, ErrCancelled) {
			return c.err
		}
		// cut short by the context of whoever ran it: no answer to keep, and, while this
		// caller's own context lives, no answer for it either: probe again
		shimChecks.CompareAndDelete(path, c)
		if ctx.Err() != nil {
			return c.err
		}
	}
}

// shimAdvice says what an embedder does about ErrNoShim.
const shimAdvice = "call nodeshim.Main first in main when shared.Invoked(os.Args) (see examples/embed), or set core.Options.ShimPath to an installed cwx binary"

func probeShimCached(ctx context.Context, path string, cache runtime.ProbeCache) error {
	if cache == nil {
		return probeShim(ctx, path)
	}
	key, ok := probecache.Keyed("shim", []string{path}, shared.Subcommand, shimProbeTier, shimProbeReply)
	if ok {
		if _, hit := cache.Get(key); hit {
			return nil
		}
	}
	err := probeShim(ctx, path)
	if ok && err == nil {
		cache.Put(key, "shim")
	}
	return err
}

// shimProbes counts shim probes actually run; tests read it to check the cache.
var shimProbes atomic.Int64

func probeShim(ctx context.Context, path string) error {
	shimProbes.Add(1)
	pctx, cancel := context.WithTimeout(ctx, shimProbeDeadline)
	defer cancel()
	cmd := exec.CommandContext(pctx, path, shared.Subcommand, "--tier="+shimProbeTier)
	cmd.Env = append(os.Environ(), shared.CookieKey+"="+shared.CookieValue, shimProbeEnv+"=1")
	out := &capped{max: shimProbeOutput}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	said := strings.TrimSpace(out.String())
	if strings.Contains(said, shimProbeReply) {
		return nil
	}
	if ctx.Err() != nil { // the caller gave up: nothing is known about the program
		return fmt.Errorf("%w: the check that %s runs the extension-host shim was cut short: %w", ErrCancelled, path, context.Cause(ctx))
	}
	var what string
	var exit *exec.ExitError
	switch {
	case errors.Is(pctx.Err(), context.DeadlineExceeded):
		what = fmt.Sprintf("did not end within %s", shimProbeDeadline)
	case errors.As(err, &exit):
		what = fmt.Sprintf("exited with status %d", exit.ExitCode())
	case err != nil:
		return fmt.Errorf("%w: run %s as the extension-host shim: %w; %s", ErrNoShim, path, err, shimAdvice)
	default:
		what = "exited with status 0"
	}
	if said != "" {
		what += ", saying: " + inert.Strip(firstLine(said))
	}
	return fmt.Errorf("%w: %s, run as `%s %s`, %s instead of becoming the shim; %s", ErrNoShim, path, path, shared.Subcommand, what, shimAdvice)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// capped keeps the first max bytes written to it. It is written by exec's copying
// goroutines, one per stream, so it locks.
type capped struct {
	mu  sync.Mutex
	max int
	// +checklocks:mu
	b bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

// CheckShim runs, once per process and program, the check that path (this executable when
// "") becomes the shim when run as `<path> nodeshim`: ErrNoShim, saying what to change,
// when it does not. A success is cached in home's probe cache.
func CheckShim(ctx context.Context, path, home string, log hclog.Logger) error {
	return checkShim(ctx, path, probeCache(home, log))
}

// CheckedShim is CheckShim returning the program it checked: path, or this executable.
// The MCP servers' keeper (`cwx nodeshim keep`) is that program.
func CheckedShim(ctx context.Context, path, home string, log hclog.Logger) (string, error) {
	if err := CheckShim(ctx, path, home, log); err != nil {
		return "", err
	}
	return shimProgram(path)
}

// shimProgram is path, or this executable when path is "".
func shimProgram(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this executable to run it as the extension-host shim: %w", err)
	}
	return exe, nil
}
