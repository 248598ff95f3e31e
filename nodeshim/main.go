package nodeshim

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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

// Main runs the shim with the arguments after the subcommand and returns the exit code.
// The caller (main.go) checked go-plugin's magic cookie.
func Main(args []string) int {
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
	s := newServer(log, *tier)
	go watchLifeline(s, log)
	go watchSIGTERM(s)
	go exitAfterReport(s)

	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: shared.Handshake,
		Plugins:         shared.ServerPluginMap(s),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return shared.ServerOptions(opts)
		},
		Logger: log.Named("plugin"),
	})
	// The core closed the connection (client.Kill): end the runtime and leave.
	s.terminate("the core closed the connection", termGrace)
	return 0
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// watchLifeline kills the runtime's group and exits when fd 3 reaches EOF: only the core
// holds the write end, so EOF means the core is gone.
func watchLifeline(s *server, log hclog.Logger) {
	if os.Getenv(shared.LifelineEnv) != "3" {
		log.Warn("started without a lifeline; the shim will not notice the core dying")
		return
	}
	syscall.CloseOnExec(shared.LifelineFD) // the runtime must not inherit it
	f := os.NewFile(shared.LifelineFD, "lifeline")
	if f == nil {
		return
	}
	var b [1]byte
	for {
		_, err := f.Read(b[:])
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
			log.Warn("lifeline closed: the core is gone; killing the runtime")
		} else {
			log.Warn("lifeline unreadable; killing the runtime", "error", err)
		}
		s.killNow("the core is gone (lifeline closed)")
		os.Exit(3)
	}
}

// watchSIGTERM terminates the runtime's group (SIGTERM, then SIGKILL) and exits once the
// exit was reported, or at once when there is no runtime or channel.
func watchSIGTERM(s *server) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	<-ch
	s.terminate("the shim received SIGTERM", termGrace)
	select {
	case <-s.reported:
	case <-time.After(exitGrace):
	}
	os.Exit(143)
}

// exitAfterReport exits the shim if the core has not closed the connection exitGrace after
// the runtime's exit was reported.
func exitAfterReport(s *server) {
	<-s.reported
	time.Sleep(exitGrace)
	s.killNow("")
	os.Exit(0)
}
