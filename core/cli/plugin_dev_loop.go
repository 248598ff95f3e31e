package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/gate"
)

// devDoubleInterrupt is how soon a second Ctrl-C must follow the one that cancelled a call
// to end the session.
const devDoubleInterrupt = time.Second

// Why a dev call was cancelled (context.Cause of its context).
var (
	errInterrupted = errors.New("cancelled by Ctrl-C")
	errReplaced    = errors.New("cancelled: the plugin was re-staged, its generation replaced")
	errSessionEnds = errors.New("cancelled: the dev session ends")
)

// devCall is the one call a dev session runs at a time, on its own goroutine; loop owns it,
// cancels it, and prints what done delivers (the answer, or why there is none) before it reads
// the next line, so a line typed after an answer never finds the call still running.
type devCall struct {
	name   string // the tool, or /command
	plugin string // who answers it, named before it runs
	cancel context.CancelCauseFunc
	done   chan string // buffered: the goroutine's whole output, once
}

// loop re-stages on changes of the folder or of config.toml, handles Ctrl-C and runs stdin's
// lines, one call at a time on its own goroutine, until the session ends (end), stdin ends
// or the watcher does. A running call is cancelled and waited for before loop returns.
func (d *devSession) loop(ctx context.Context, end context.CancelFunc, w *fsnotify.Watcher, stdin io.Reader) error {
	lines := make(chan string)
	go func() { // ends with stdin, or once ctx ends and loop stops reading
		defer close(lines)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		d.cancelCall(errSessionEnds)
		if d.call != nil {
			d.printf("%s", <-d.call.done)
		}
	}()
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	var changed time.Time
	var folder, conf bool // what changed since the last debounce
	var lastCancel time.Time
	for {
		var callDone chan string
		if d.call != nil {
			callDone = d.call.done
		}
		select {
		case <-ctx.Done():
			return nil
		case <-d.opts.interrupts:
			if d.call == nil || time.Since(lastCancel) < devDoubleInterrupt {
				end()
				return nil
			}
			lastCancel = time.Now()
			d.printf("^C: cancelling %s (Ctrl-C again within %s ends the session)\n", d.call.name, devDoubleInterrupt)
			d.cancelCall(errInterrupted)
		case out := <-callDone:
			d.printf("%s", out)
			d.call = nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if filepath.Dir(ev.Name) == d.home && !strings.HasPrefix(d.dir, d.home+string(filepath.Separator)) {
				if filepath.Base(ev.Name) != filepath.Base(config.Path(d.home)) {
					continue // the home's other files (state, logs) are the core's own
				}
				conf = true
			} else {
				if ev.Has(fsnotify.Create) {
					_ = addTree(w, ev.Name) // a new sub-folder is watched too
				}
				folder = true
			}
			if changed.IsZero() {
				changed = time.Now()
			}
			debounce.Reset(devDebounce)
		case err := <-w.Errors:
			d.printf("watch: %v\n", err)
		case <-debounce.C:
			if folder {
				d.restage(ctx, changed)
			}
			if conf {
				d.reconfigure(ctx, changed)
			}
			changed, folder, conf = time.Time{}, false, false
		case line, ok := <-lines:
			if !ok {
				return nil
			}
			d.line(ctx, line)
		}
	}
}

// reconfigure re-reads config.toml: the plugin gets a new generation when its config (or
// isolation) changed, and keeps its own otherwise.
func (d *devSession) reconfigure(ctx context.Context, changed time.Time) {
	prev, _ := ownerOf(d.m, d.id)
	d.printf("%s: config.toml changed; re-reading it\n", d.id)
	d.settle(ctx, changed, prev.Generation, false, d.m.Reconcile)
}

// reload is /reload: re-stage the folder, re-read config.toml and retry a failed plugin.
func (d *devSession) reload(ctx context.Context) {
	start := time.Now()
	prev, _ := ownerOf(d.m, d.id)
	if _, err := d.stage(); err != nil {
		d.printf("%s: not re-staged: %s\n", d.id, oneLine(stripEscapes(advise(err))))
		return
	}
	d.cancelCall(errReplaced)
	sync := d.m.Reconcile
	if r, ok := d.m.(reloader); ok {
		sync = r.Reload
	}
	d.settle(ctx, start, prev.Generation, false, sync)
}

// line handles one stdin line: /reload, or a call started on its own goroutine unless one
// is already running.
func (d *devSession) line(ctx context.Context, line string) {
	line = strings.TrimSpace(line)
	switch {
	case line == "" || strings.HasPrefix(line, "#"):
		return
	case line == "/reload":
		d.reload(ctx)
		return
	case d.call != nil:
		d.printf("busy: %s is still running; Ctrl-C cancels it (%q not run)\n", d.call.name, line)
		return
	}
	name, _ := splitWord(line)
	c := &devCall{name: name, done: make(chan string, 1)}
	if tool, ok := strings.CutPrefix(name, "/"); ok {
		c.plugin = commandPlugin(d.m, tool)
	} else {
		c.plugin = pluginOf(d.m, name)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	c.cancel = cancel
	d.call = c
	go func() {
		defer cancel(nil)
		c.done <- d.run(cctx, c, line)
	}()
}

// cancelCall cancels the running call, if any, with why.
func (d *devSession) cancelCall(why error) {
	if d.call != nil {
		d.call.cancel(why)
	}
}

// run executes one call under the session's --timeout and returns its answer, or why it
// has none, and its latency, to print.
func (d *devSession) run(ctx context.Context, c *devCall, line string) string {
	if d.opts.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d.opts.timeout, fmt.Errorf("cancelled: no answer within %s (--timeout)", d.opts.timeout))
		defer cancel()
	}
	start := time.Now()
	var buf strings.Builder
	err := d.call1(ctx, &buf, line)
	took := time.Since(start)
	switch {
	case err != nil && context.Cause(ctx) != nil:
		fmt.Fprintf(&buf, "error: %s%s: %s\n", c.name, byPlugin(c.plugin), context.Cause(ctx))
	case errors.Is(err, core.ErrTimeout): // the core's own deadline: say whose call it was
		fmt.Fprintf(&buf, "error: %s%s: %s\n", c.name, byPlugin(c.plugin), oneLine(stripEscapes(err.Error())))
	case err != nil:
		fmt.Fprintf(&buf, "error: %s\n", oneLine(stripEscapes(d.paths.rewrite(advise(callErr(err))))))
	}
	fmt.Fprintf(&buf, "(%s in %.1f ms)\n", c.name, float64(took.Microseconds())/1000)
	return buf.String()
}

// byPlugin is " (plugin ID)", or "" when no plugin is known.
func byPlugin(id string) string {
	if id == "" {
		return ""
	}
	return " (plugin " + id + ")"
}

// authorApproves answers the approval cards of the session's calls: the author typed the
// call, so a tool of the session's own plugin, which every other process asks about each
// time (gate.Request.Dev), is allowed once here. Any other card that must be asked (another
// session's dev plugin, the native shell, a hook's ask) fails closed, as with no approver.
func (d *devSession) authorApproves() core.Approver {
	return gate.ApproverFunc(func(_ context.Context, card core.ApprovalCard) (core.Decision, error) {
		if card.Dev && card.Requirement != gate.Forced && card.Origin == gate.OriginExtension && card.PluginID == d.id {
			return core.AllowOnce, nil
		}
		return core.DenyDecision, fmt.Errorf("%w for %s", gate.ErrNoApprover, card.Subject)
	})
}

func (d *devSession) call1(ctx context.Context, w io.Writer, line string) error {
	o := core.CallOptions{Workspace: d.opts.workspace, Approver: d.authorApproves()}
	if d.inspect != nil {
		o.Deadline = devSuspended // a breakpoint may hold the call; --timeout still applies
	}
	if name, ok := strings.CutPrefix(line, "/"); ok {
		name, raw := splitWord(name)
		res, err := d.m.RunCommand(ctx, name, raw, o)
		if err != nil {
			return err
		}
		return printCommandResult(w, name, commandPlugin(d.m, name), res, false)
	}
	name, input := splitWord(line)
	if input == "" {
		input = "{}"
	}
	if !json.Valid([]byte(input)) {
		return exitf(ExitUsage, "the input is not valid JSON (e.g. %s {\"name\":\"Ada\"})", name)
	}
	plugin := pluginOf(d.m, name) // the owner the call goes to, named before it runs
	res, err := d.m.CallTool(ctx, name, json.RawMessage(input), o)
	if err != nil {
		return err
	}
	return printToolResult(w, name, plugin, res, nil, toolCallFlags{})
}
