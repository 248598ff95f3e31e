package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
)

// Bounds of `cwx plugin dev`.
const (
	// devDebounce gathers the events of one save (editors write, rename and chmod) into one
	// re-stage.
	devDebounce = 30 * time.Millisecond
	// devActivateWait bounds the wait for a generation to settle after a re-stage.
	devActivateWait = 15 * time.Second
)

func pluginDevCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "dev PATH",
		Short: "Run a plugin folder under a dev receipt and re-activate it on every change",
		Long: "Installs the folder, trusts it with a dev receipt bound to these bytes and this\n" +
			"process (no review token), enables it and activates it. Every change of the folder\n" +
			"re-stages it under a new closure and a new dev receipt, and the plugin is activated\n" +
			"again under a new generation on the same warm host. Its log lines are printed with\n" +
			"its name, and each activation's time. Lines on stdin run calls, with their latency:\n" +
			"`/NAME ARGS` runs a command, `NAME JSON` calls a tool (approved: you typed it).\n" +
			"Ctrl-C or the end of stdin ends the session and its receipt; the plugin is left\n" +
			"untrusted and as enabled as it was before. Tarballs are refused.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			return runDev(ctx, args[0], cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
}

// devSession is one `cwx plugin dev`: the store, the Manager with the warm host and the
// plugin it re-stages.
type devSession struct {
	dir, id string
	lease   *plugins.DevSession // the flock that keeps its dev receipts valid
	store   *plugins.Store
	m       liveCore
	outMu   sync.Mutex // serializes out between logs, activations and calls
	out     io.Writer
}

func runDev(ctx context.Context, path string, stdin io.Reader, out, errw io.Writer) (err error) {
	dir, err := devFolder(path)
	if err != nil {
		return err
	}
	s, _, err := openPlugins()
	if err != nil {
		return err
	}
	man, err := plugins.ReadManifest(dir)
	if err != nil {
		return pluginErr(err)
	}
	wasEnabled := false
	if r, err := s.Get(man.ID); err == nil {
		wasEnabled = r.Enabled
	}
	lease, err := s.BeginDev()
	if err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	d := &devSession{dir: dir, id: man.ID, lease: lease, store: s, out: out}
	defer func() {
		if e := s.EndDev(d.id, d.lease, wasEnabled); e != nil {
			err = firstErr(err, pluginErr(e))
		}
		if e := d.lease.End(); e != nil {
			err = firstErr(err, &ExitError{Code: ExitInternal, Err: e})
		}
		d.printf("dev session ended: %s has no dev receipt any more\n", d.id)
	}()
	w, err := watchTree(dir)
	if err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	defer func() { _ = w.Close() }()
	start := time.Now()
	if _, err := d.stage(); err != nil {
		return err
	}
	if err := s.Enable(d.id); err != nil {
		return pluginErr(err)
	}
	m, err := openCore(ctx, core.Options{Logger: devLogger(d, errw), Approval: "auto"})
	if err != nil {
		return callErr(err)
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	d.m = m
	d.printf("cwx plugin dev: %s from %s; edit it and it is activated again\n", d.id, dir)
	d.activate(ctx, start, 0)
	// a dev session is one session: SessionStart now, SessionEnd when it ends (input ended:
	// prompt_input_exit; a signal: other)
	hs := startHookSession(ctx, m, core.CallOptions{Workspace: d.dir}, devWriter{d})
	defer func() {
		reason := cmdhooks.ReasonPromptInputExit
		if ctx.Err() != nil || hs.Start.Stop {
			reason = cmdhooks.ReasonOther
		}
		hs.end(ctx, reason)
	}()
	if err := hs.Stopped(); err != nil {
		return err
	}
	return d.loop(ctx, w, stdin)
}

// devWriter writes through the dev session's printf, so hook lines never interleave with
// its own.
type devWriter struct{ d *devSession }

func (w devWriter) Write(p []byte) (int, error) {
	w.d.printf("%s", p)
	return len(p), nil
}

// devFolder resolves path to an absolute folder; a file (a tarball) is refused.
func devFolder(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", &ExitError{Code: ExitUsage, Err: err}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", &ExitError{Code: ExitUsage, Err: err}
	}
	if !fi.IsDir() {
		return "", exitf(ExitUsage, "%s is not a folder: cwx plugin dev runs a plugin folder (install a tarball with cwx plugin install)", path)
	}
	return abs, nil
}

// loop re-stages on changes and runs stdin's lines until ctx ends or stdin does.
func (d *devSession) loop(ctx context.Context, w *fsnotify.Watcher, stdin io.Reader) error {
	lines := make(chan string)
	go func() {
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
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	var changed time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				addTree(w, ev.Name) // a new sub-folder is watched too
			}
			if changed.IsZero() {
				changed = time.Now()
			}
			debounce.Reset(devDebounce)
		case err := <-w.Errors:
			d.printf("watch: %v\n", err)
		case <-debounce.C:
			d.restage(ctx, changed)
			changed = time.Time{}
		case line, ok := <-lines:
			if !ok {
				return nil
			}
			d.run(ctx, line)
		}
	}
}

// stage installs the folder and gives its closure a dev receipt; unchanged reports that
// the bytes were already installed.
func (d *devSession) stage() (unchanged bool, err error) {
	res, err := d.store.Install(d.dir)
	if err != nil {
		return false, pluginErr(err)
	}
	if res.ID != d.id {
		return false, exitf(ExitInvalid, "the folder now names plugin %q, not %q; restart cwx plugin dev", res.ID, d.id)
	}
	if err := d.store.TrustDev(d.id, d.lease); err != nil {
		return false, pluginErr(err)
	}
	return res.Unchanged, nil
}

// restage re-stages after a change and activates the new closure.
func (d *devSession) restage(ctx context.Context, changed time.Time) {
	prev, _ := ownerOf(d.m, d.id)
	unchanged, err := d.stage()
	switch {
	case err != nil:
		d.printf("%s: not re-staged: %s\n", d.id, oneLine(stripEscapes(advise(err))))
		return
	case unchanged:
		return
	}
	d.activate(ctx, changed, prev.Generation)
}

// activate reconciles and waits until the owner of a generation after prevGen settled, then
// prints its state, what it has live and how long it took since start.
func (d *devSession) activate(ctx context.Context, start time.Time, prevGen uint64) {
	if _, err := core.PluginErrors(d.m.Reconcile(ctx)); err != nil { // the plugin's own failure is printed below, once
		d.printf("%s: %s\n", d.id, oneLine(stripEscapes(advise(err))))
	}
	wctx, cancel := context.WithTimeout(ctx, devActivateWait)
	defer cancel()
	info, ok := ownerOf(d.m, d.id)
	for !ok || info.Generation == prevGen || info.State == "activating" {
		if sleepCtx(wctx, time.Millisecond) != nil {
			d.printf("%s: no new generation within %s\n", d.id, devActivateWait)
			return
		}
		info, ok = ownerOf(d.m, d.id)
	}
	took := time.Since(start).Milliseconds()
	if info.State != "active" {
		d.printf("%s: generation %d %s after %d ms: %s\n", d.id, info.Generation, info.State, took, oneLine(stripEscapes(info.Reason)))
		return
	}
	names := append([]string{}, info.Tools...)
	for _, c := range info.Commands {
		names = append(names, "/"+c)
	}
	d.printf("%s: generation %d active in %d ms: %s\n", d.id, info.Generation, took, strings.Join(names, ", "))
}

// run executes one stdin line: `/NAME ARGS` runs a command, `NAME JSON` calls a tool.
func (d *devSession) run(ctx context.Context, line string) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return
	}
	start := time.Now()
	var buf strings.Builder
	err := d.call(ctx, &buf, line)
	took := time.Since(start)
	if err != nil {
		fmt.Fprintf(&buf, "error: %s\n", oneLine(stripEscapes(advise(callErr(err)))))
	}
	fmt.Fprintf(&buf, "(%s in %.1f ms)\n", strings.SplitN(line, " ", 2)[0], float64(took.Microseconds())/1000)
	d.printf("%s", buf.String())
}

func (d *devSession) call(ctx context.Context, w io.Writer, line string) error {
	if name, ok := strings.CutPrefix(line, "/"); ok {
		name, raw := splitWord(name)
		res, err := d.m.RunCommand(ctx, name, raw, core.CallOptions{Workspace: d.dir})
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
	res, err := d.m.CallTool(ctx, name, json.RawMessage(input), core.CallOptions{Workspace: d.dir})
	if err != nil {
		return err
	}
	return printToolResult(w, name, plugin, res, nil, toolCallFlags{})
}

func (d *devSession) printf(format string, args ...any) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	printf(d.out, format, args...)
}

// watchTree watches dir and every folder under it but .git.
func watchTree(dir string) (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	if err := addTree(w, dir); err != nil {
		_ = w.Close()
		return nil, err
	}
	return w, nil
}

func addTree(w *fsnotify.Watcher, root string) error {
	return filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone between the event and the walk
			}
			return err
		case !e.IsDir():
			return nil
		case e.Name() == ".git":
			return filepath.SkipDir
		}
		return w.Add(p)
	})
}

// devLogger prints the hosts' log lines of the plugin under development, attributed to it,
// on the session's stdout, and the core's warnings and errors on stderr.
func devLogger(d *devSession, errw io.Writer) hclog.Logger {
	l := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "cwx", Level: min(stderrLevel(), hclog.Warn), Output: inertWriter{errw}})
	l.RegisterSink(devSink{d})
	if home, err := config.Home(); err == nil {
		l.RegisterSink(&fileSink{home: home, now: time.Now})
	}
	return l
}

type devSink struct{ d *devSession }

// Accept implements hclog.SinkAdapter: a "host: " line whose plugin is the one under
// development is printed as "[id] level: text".
func (s devSink) Accept(_ string, level hclog.Level, msg string, args ...interface{}) {
	text, ok := strings.CutPrefix(msg, "host: ")
	if !ok {
		return
	}
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "plugin" && args[i+1] == s.d.id {
			text = strings.TrimPrefix(text, "["+s.d.id+"] ") // the host's own attribution
			s.d.printf("[%s] %s: %s\n", s.d.id, strings.ToLower(level.String()), oneLine(stripEscapes(text)))
			return
		}
	}
}
