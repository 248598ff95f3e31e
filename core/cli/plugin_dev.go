package cli

import (
	"context"
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
	"github.com/cwx-dev/cwx/core/protocol"
)

// Bounds of `cwx plugin dev`.
const (
	// devDebounce gathers the events of one save (editors write, rename and chmod) into one
	// re-stage.
	devDebounce = 30 * time.Millisecond
	// devActivateWait bounds the wait for a generation to settle after a re-stage.
	devActivateWait = 15 * time.Second
)

// devOptions are the flags of `cwx plugin dev`.
type devOptions struct {
	timeout   time.Duration // per call; 0 leaves the core's own deadlines
	workspace string        // the calls' workspace; "" is the plugin folder
	inspect   string        // --inspect's port ("" for none, "0" for a free one)
	brk       bool          // --inspect-brk
	// interrupts delivers Ctrl-C (SIGINT): the first cancels the running call, a second within
	// devDoubleInterrupt, or one with no call running, ends the session.
	interrupts <-chan os.Signal
}

func pluginDevCmd() *cobra.Command {
	var o devOptions
	cmd := &cobra.Command{
		Use:   "dev PATH",
		Short: "Run a plugin folder under a dev receipt and re-activate it on every change",
		Long: "Installs the folder, trusts it with a dev receipt bound to these bytes and this\n" +
			"process (no review token), enables it and activates it. Every change of the folder\n" +
			"(or of config.toml) re-stages it under a new closure and a new dev receipt, and the\n" +
			"plugin is activated again under a new generation on the same warm host; a call still\n" +
			"running is cancelled first. Its log lines are printed with its name, and each\n" +
			"activation's time. Lines on stdin run calls, with their latency: `/NAME ARGS` runs a\n" +
			"command, `NAME JSON` calls a tool (approved: you typed it), `/reload` re-stages and\n" +
			"retries. Ctrl-C cancels the running call; a second Ctrl-C within a second (or one\n" +
			"with no call running), or the end of stdin, ends the session and its receipt; the\n" +
			"plugin is left untrusted and as enabled as it was before. Tarballs are refused.\n" +
			"--inspect[=PORT] (or --inspect-brk, which waits at the host's first line) runs the\n" +
			"plugin in a host of its own, unsandboxed for the session, with Node's inspector on\n" +
			"127.0.0.1 (a free port by default, printed with its WebSocket URL); the host's and\n" +
			"the calls' deadlines (heartbeat, activation, call) are suspended for the session, so\n" +
			"a breakpoint holds nothing up but itself. Bun runs it without an inspector.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sigs := make(chan os.Signal, 4)
			signal.Notify(sigs, os.Interrupt)
			defer signal.Stop(sigs)
			o.interrupts = sigs
			return runDev(cmd.Context(), args[0], o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().DurationVar(&o.timeout, "timeout", 0, "cancel a call that has not answered within this long (e.g. 5s; default: the core's own deadlines)")
	cmd.Flags().StringVar(&o.workspace, "workspace", "", "the workspace of the calls (default: the plugin folder)")
	var brk string
	cmd.Flags().StringVar(&o.inspect, "inspect", "", "run the plugin in a host of its own, unsandboxed, with Node's inspector on 127.0.0.1:PORT (default: a free port)")
	cmd.Flags().Lookup("inspect").NoOptDefVal = "0"
	cmd.Flags().StringVar(&brk, "inspect-brk", "", "as --inspect, and the host waits at its first line for the debugger")
	cmd.Flags().Lookup("inspect-brk").NoOptDefVal = "0"
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if cmd.Flags().Changed("inspect-brk") {
			if cmd.Flags().Changed("inspect") {
				return exitf(ExitUsage, "give --inspect or --inspect-brk, not both")
			}
			o.inspect, o.brk = brk, true
		}
		return nil
	}
	return cmd
}

// devSession is one `cwx plugin dev`: the store, the Manager with the warm host and the
// plugin it re-stages.
type devSession struct {
	dir, id string
	lease   *plugins.DevSession // the flock that keeps its dev receipts valid
	store   *plugins.Store
	m       liveCore
	opts    devOptions
	home    string     // $CWX_HOME, whose config.toml is watched
	outMu   sync.Mutex // serializes out between logs, activations and calls
	out     io.Writer
	call    *devCall      // the call running, nil when none; owned by loop
	inspect *devInspector // --inspect, nil without
	paths   authorPaths   // points logs and errors at the author's files
}

func runDev(parent context.Context, path string, o devOptions, stdin io.Reader, out, errw io.Writer) (err error) {
	ctx, end := context.WithCancel(parent)
	defer end()
	dir, err := devFolder(path)
	if err != nil {
		return err
	}
	if o.workspace == "" {
		o.workspace = dir
	} else if o.workspace, err = devFolder(o.workspace); err != nil {
		return err
	}
	home, err := config.Home()
	if err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
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
	d := &devSession{dir: dir, id: man.ID, lease: lease, store: s, out: out, opts: o, home: home,
		paths: newAuthorPaths(s.Layout().PluginDir(man.ID), dir)}
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
	if err := w.Add(home); err != nil { // config.toml: watched through its folder (editors replace it)
		return &ExitError{Code: ExitInternal, Err: fmt.Errorf("watch %s: %w", home, err)}
	}
	start := time.Now()
	if _, err := d.stage(); err != nil {
		return err
	}
	d.warnTypeStripping(ctx)
	if err := s.Enable(d.id); err != nil {
		return pluginErr(err)
	}
	co := core.Options{Logger: devLogger(d, errw), Approval: "auto", Skills: cliSkills(o.workspace)}
	if o.inspect != "" || o.brk {
		if d.inspect, err = newDevInspector(d.id, o.inspect, o.brk); err != nil {
			return err
		}
		d.inspect.sources = devSources(s.Layout().PluginDir(d.id), dir)
		co.Isolate, co.Tier = []string{d.id}, d.inspect.tier
	}
	m, err := openCore(ctx, co)
	if err != nil {
		return callErr(err)
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	d.m = m
	d.printf("cwx plugin dev: %s from %s; edit it and it is activated again\n", d.id, dir)
	if d.inspect != nil {
		done := make(chan struct{})
		go func() { defer close(done); d.inspect.announce(ctx, d) }()
		defer func() { end(); <-done }()
	}
	d.activate(ctx, start, 0)
	// a dev session is one session: SessionStart now, SessionEnd when it ends (input ended:
	// prompt_input_exit; a signal: other)
	hs := startHookSession(ctx, m, core.CallOptions{Workspace: d.opts.workspace}, devWriter{d})
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
	return d.loop(ctx, end, w, stdin)
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

// warnTypeStripping prints what of the folder's TypeScript Node would not load
// (typeStripNotes), paths relative to the author's folder.
func (d *devSession) warnTypeStripping(ctx context.Context) {
	cfg, err := config.LoadHome(d.home)
	if err != nil {
		return // the config's own error is reported where it is read
	}
	for _, n := range typeStripNotes(ctx, d.home, cfg, d.dir) {
		d.printf("warning: %s\n", oneLine(stripEscapes(n)))
	}
}

// restage re-stages after a change and activates the new closure; a call still running is
// cancelled first (its generation is being replaced).
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
	d.cancelCall(errReplaced)
	d.activate(ctx, changed, prev.Generation)
	d.warnTypeStripping(ctx) // after the new generation: a call waiting on it is not held up
}

// activate reconciles and waits until the owner of a generation after prevGen settled, then
// prints its state, what it has live and how long it took since start.
func (d *devSession) activate(ctx context.Context, start time.Time, prevGen uint64) {
	d.settle(ctx, start, prevGen, true, d.m.Reconcile)
}

// settle runs sync (Reconcile or Reload) and waits until the plugin's owner is no longer
// activating (and, with needNew, has a generation after prevGen), then prints its state.
func (d *devSession) settle(ctx context.Context, start time.Time, prevGen uint64, needNew bool, sync func(context.Context) error) {
	if _, err := core.PluginErrors(sync(ctx)); err != nil { // the plugin's own failure is printed below, once
		d.printf("%s: %s\n", d.id, oneLine(stripEscapes(advise(err))))
	}
	wait := devActivateWait
	if d.inspect != nil {
		wait = devSuspended // a breakpoint may hold the activation
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	info, ok := ownerOf(d.m, d.id)
	for !ok || (needNew && info.Generation == prevGen) || info.State == "activating" {
		if sleepCtx(wctx, time.Millisecond) != nil {
			d.printf("%s: no new generation within %s\n", d.id, wait)
			return
		}
		info, ok = ownerOf(d.m, d.id)
	}
	took := time.Since(start).Milliseconds()
	if info.State != "active" {
		d.printf("%s: generation %d %s after %d ms: %s%s\n", d.id, info.Generation, info.State, took, oneLine(stripEscapes(info.Reason)), d.hostNote(info))
		return
	}
	names := append([]string{}, info.Tools...)
	for _, c := range info.Commands {
		names = append(names, "/"+c)
	}
	verb := "active in"
	if info.Generation == prevGen {
		verb = "unchanged, checked in"
	}
	d.printf("%s: generation %d %s %d ms: %s%s\n", d.id, info.Generation, verb, took, strings.Join(names, ", "), d.hostNote(info))
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
			s.d.printf("[%s] %s: %s\n", s.d.id, strings.ToLower(level.String()), oneLine(stripEscapes(s.d.paths.rewrite(text))))
			return
		}
	}
}

// hostNote is what an activation line adds about the host under --inspect: which host, its
// runtime's pid, unsandboxed and where the inspector is; "" without --inspect.
func (d *devSession) hostNote(info core.OwnerInfo) string {
	if d.inspect == nil {
		return ""
	}
	pid := d.m.HostAt(protocol.HostKey{Tier: protocol.TierPlugin, Group: d.id}).RuntimePID
	return d.inspect.note(info.Host, pid)
}
