package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// devSuspended replaces the deadlines of an inspected plugin's host and calls: a runtime
// paused at a breakpoint answers no heartbeat, no activation and no call, and one started
// with --inspect-brk sends no hello until the debugger lets it run.
const devSuspended = supervisor.DebuggedDeadline

// devInspector is `cwx plugin dev --inspect[=PORT]` or `--inspect-brk[=PORT]`: the dev plugin
// in a host of its own (core.Options.Isolate), its runtime started with the inspector on
// 127.0.0.1:port, unsandboxed for the session, with its host's deadlines suspended
// (supervisor.Options.Debugged: handshake, start, heartbeat, hang, activation) and its
// calls' (core.CallOptions.Deadline), for the whole session: cwx cannot tell when a
// debugger is attached.
type devInspector struct {
	id   string
	port int
	brk  bool
	bun  atomic.Bool // the host's runtime is Bun, started without the inspector
	// sources is CWX_DEV_SOURCES for the host (nodeshim/jshost/src/dev-sources.ts): the
	// plugin's staged prefix to the author's folder, so every generation's modules carry
	// the author's file names and breakpoints survive reloads.
	sources string
}

// devSources is CWX_DEV_SOURCES's value: each spelling of pluginDir (as given, and with its
// symlinks resolved), with a trailing separator, mapped to the author's folder.
func devSources(pluginDir, author string) string {
	m := map[string]string{pluginDir + string(filepath.Separator): author}
	if real, err := filepath.EvalSymlinks(pluginDir); err == nil {
		m[real+string(filepath.Separator)] = author
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// newDevInspector parses the flag's value ("" or "0": a free port, chosen now).
func newDevInspector(id, value string, brk bool) (*devInspector, error) {
	port := 0
	if value != "" {
		p, err := strconv.Atoi(value)
		if err != nil || p < 0 || p > 65535 {
			return nil, exitf(ExitUsage, "--inspect=%s: give a port from 1 to 65535, or none for a free one", value)
		}
		port = p
	}
	if port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, &ExitError{Code: ExitInternal, Err: fmt.Errorf("find a free port for the inspector: %w", err)}
		}
		port = l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
	}
	return &devInspector{id: id, port: port, brk: brk}, nil
}

// tier adjusts the supervisor options of the dev plugin's own host (core.Options.Tier).
func (in *devInspector) tier(o *supervisor.Options) {
	if o.Group != in.id {
		return
	}
	o.Sandbox = nil // the inspector listens on the host's network, which a sandbox has none of
	o.Debugged = true
	if in.sources != "" {
		o.ExtraEnv = append(slices.Clone(o.ExtraEnv), "CWX_DEV_SOURCES="+in.sources)
	}
	if o.Runtime.Kind == runtime.KindBun {
		in.bun.Store(true) // Bun's inspector speaks WebKit's protocol; see the doc of inspectFlag
		return
	}
	o.Runtime.NodeFlags = append(slices.Clone(o.Runtime.NodeFlags), in.flag())
}

func (in *devInspector) flag() string {
	name := "--inspect"
	if in.brk {
		name = "--inspect-brk"
	}
	return fmt.Sprintf("%s=127.0.0.1:%d", name, in.port)
}

// note is what every line reporting the host (host: the owner's, as OwnerInfo.Host; pid:
// its runtime's) adds.
func (in *devInspector) note(host string, pid int) string {
	if in == nil {
		return ""
	}
	if in.bun.Load() {
		return fmt.Sprintf(" [host %s pid %d, unsandboxed; no inspector: Bun]", host, pid)
	}
	return fmt.Sprintf(" [host %s pid %d, unsandboxed: inspector on 127.0.0.1:%d]", host, pid, in.port)
}

// announce prints where to attach, then waits (until ctx ends) for the inspector to answer
// and prints its WebSocket URL.
func (in *devInspector) announce(ctx context.Context, d *devSession) {
	d.printf("%s: inspector on 127.0.0.1:%d for its own host, unsandboxed for this session; "+
		"attach Chrome DevTools (chrome://inspect) or VS Code (\"attach\", port %d)\n", in.id, in.port, in.port)
	if in.brk {
		d.printf("%s: --inspect-brk: the host waits at its first line until a debugger lets it run\n", in.id)
	}
	c := &http.Client{Timeout: time.Second}
	for ctx.Err() == nil {
		if in.bun.Load() {
			d.printf("%s: Bun runs it without an inspector: Bun's speaks WebKit's protocol, not the one --inspect offers (set [extension_host] runtime = \"node\")\n", in.id)
			return
		}
		if url, err := in.debuggerURL(ctx, c); err == nil {
			d.printf("%s: inspector %s\n", in.id, url)
			return
		}
		if sleepCtx(ctx, 50*time.Millisecond) != nil {
			return
		}
	}
}

// debuggerURL asks the inspector's HTTP endpoint for the WebSocket URL of its one target.
func (in *devInspector) debuggerURL(ctx context.Context, c *http.Client) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/json/list", in.port), nil)
	if err != nil {
		return "", err
	}
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = res.Body.Close() }()
	var targets []struct {
		URL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(res.Body).Decode(&targets); err != nil {
		return "", err
	}
	if len(targets) == 0 || targets[0].URL == "" {
		return "", fmt.Errorf("the inspector lists no target")
	}
	return targets[0].URL, nil
}
