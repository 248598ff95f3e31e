package nodeshim

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/cwx-dev/cwx/shared"
)

// exitGrace bounds how long the shim waits for the core to close the connection after it
// reported the runtime's exit.
const exitGrace = 2 * time.Second

// Main runs the shim with the arguments after the subcommand and returns the exit code its
// shutdown decided. The caller (main.go) checked go-plugin's magic cookie.
func Main(args []string) int {
	if len(args) > 0 && args[0] == execHelperMode {
		return RunExecHelper(args[1:])
	}
	if len(args) > 0 && args[0] == shared.DropPrivilegesMode {
		return RunDropPrivileges(args[1:])
	}
	if len(args) > 0 && args[0] == shared.KeeperMode {
		return RunKeeper(args[1:])
	}
	fs := flag.NewFlagSet("cwx nodeshim", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	tier := fs.String("tier", "", "trust tier: plugin or builtin")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *tier != "plugin" && *tier != "builtin" {
		fmt.Fprintf(os.Stderr, "cwx nodeshim: --tier must be plugin or builtin, got %q\n", *tier)
		return 2
	}
	// Created before plugin.Serve swaps os.Stderr, so it writes to the real fd 2, which the
	// core's go-plugin client reads as hclog JSON.
	log := hclog.New(&hclog.LoggerOptions{
		Name:       "nodeshim." + *tier,
		Level:      hclog.LevelFromString(envOr(shared.LogLevelEnv, "info")),
		Output:     os.Stderr,
		JSONFormat: true,
	})
	stopProfile := startCPUProfile(log, *tier)
	defer stopProfile()
	if err := becomeSubreaper(); err != nil {
		log.Warn("not a child subreaper: processes that leave the runtime's group may outlive it", "error", err)
	}
	sd := newShutdown(log, joinGrace)
	s := newServer(log, *tier, sd)
	s.snapshot = takeSnapshot()
	// Registered before the handshake, so a SIGTERM never finds the default action (death
	// without cleanup), and never unregistered: a SIGTERM during another trigger's cleanup
	// changes nothing.
	sigterm := make(chan os.Signal, 1)
	signal.Notify(sigterm, syscall.SIGTERM)
	// Once the core is gone, the shim's stderr is a broken pipe, and Go ends a process
	// whose write to fd 2 fails with EPIPE unless SIGPIPE is notified: the shim must live
	// on to sweep the runtime's descendants. Caught, not ignored, so the runtime is born
	// with the default action.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	watchLifeline(s, sd, log)
	sd.Go(func() { onSIGTERM(s, sd, sigterm) })
	sd.Go(func() { exitAfterReport(s, sd, exitGrace) })
	go serve(s, sd, log) // not waited for: on any other trigger the process ends under it
	code := sd.wait()
	s.awaitSwept(sweepBound)
	return code
}

// serve runs go-plugin's server until the core closes the connection (client.Kill), then
// triggers the shutdown: end the runtime and leave.
func serve(s *server, sd *shutdown, log hclog.Logger) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: shared.Handshake,
		Plugins:         shared.ServerPluginMap(s),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return shared.ServerOptions(opts)
		},
		Logger: log.Named("plugin"),
	})
	const reason = "the core closed the connection"
	sd.trigger(exitOK, reason, func() { s.terminate(reason, termGrace) })
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// takeSnapshot takes the startup snapshot's descriptor when the core passed one (fd 4), so
// that only the runtime inherits it, as its fd 7; nil without one.
func takeSnapshot() *os.File {
	if os.Getenv(shared.SnapshotEnv) != strconv.Itoa(shared.SnapshotFD) {
		return nil
	}
	syscall.CloseOnExec(shared.SnapshotFD) // passed on explicitly, by spawn
	return os.NewFile(shared.SnapshotFD, "snapshot")
}

// watchLifeline starts the lifeline's reader when the core gave the shim one (fd 3).
func watchLifeline(s *server, sd *shutdown, log hclog.Logger) {
	if os.Getenv(shared.LifelineEnv) != "3" {
		log.Warn("started without a lifeline; the shim will not notice the core dying")
		return
	}
	syscall.CloseOnExec(shared.LifelineFD) // the runtime must not inherit it
	f := os.NewFile(shared.LifelineFD, "lifeline")
	if f == nil {
		return
	}
	// Not waited for: it sits in read(2) on a blocking descriptor until the core is gone.
	go onLifelineEOF(s, sd, f, log)
}

// onLifelineEOF reads r until it fails, then kills the runtime's group and triggers the
// shutdown: only the core holds the pipe's write end, so EOF means the core is gone. The
// kill happens here, not in a cleanup, so that it also cuts short a graceful end already
// under way: there is no core left to wait for.
func onLifelineEOF(s *server, sd *shutdown, r io.Reader, log hclog.Logger) {
	var b [1]byte
	for {
		_, err := r.Read(b[:])
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
			log.Warn("lifeline closed: the core is gone; killing the runtime")
		} else {
			log.Warn("lifeline unreadable; killing the runtime", "error", err)
		}
		const reason = "the core is gone (lifeline closed)"
		s.killNow(reason)
		sd.trigger(exitLifeline, reason, nil)
		return
	}
}

// onSIGTERM waits for SIGTERM on sig and triggers the shutdown: terminate the runtime's
// group (SIGTERM, then SIGKILL), then give the Exit event up to exitGrace to reach the
// core (the whole exitGrace when no channel was ever opened).
func onSIGTERM(s *server, sd *shutdown, sig <-chan os.Signal) {
	select {
	case <-sig:
	case <-sd.Done():
		return
	}
	const reason = "the shim received SIGTERM"
	sd.trigger(exitSIGTERM, reason, func() {
		s.terminate(reason, termGrace)
		t := time.NewTimer(exitGrace)
		defer t.Stop()
		select {
		case <-s.reported:
		case <-t.C:
		}
	})
}

// exitAfterReport triggers the shutdown if the core has not closed the connection grace
// after the runtime's exit was reported.
func exitAfterReport(s *server, sd *shutdown, grace time.Duration) {
	select {
	case <-s.reported:
	case <-sd.Done():
		return
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-t.C:
	case <-sd.Done():
		return
	}
	sd.trigger(exitOK, "the core left the connection open after the exit report", func() { s.killNow("") })
}
