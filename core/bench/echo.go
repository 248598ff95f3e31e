package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// The two echoes of `cwx bench` measure the transports of a tool call with no cwx code on
// the echo path: go-plugin's gRPC stream (the Channel of shared/proto/shimv1, spoken with
// grpc-go's own protobuf codec, served by a go-plugin server whose handler sends back each
// Frame it receives) and a bare pipe (a process copying its stdin to its stdout). Both
// echo servers are the cwx binary under hidden subcommands (`cwx bench grpc-echo`, `cwx
// bench pipe-echo`), so they start like the shim does, and hold none of its relay.

// EchoSize is the payload each echo round trip carries.
const EchoSize = 1 << 10

// echoPluginName is the echo's key in go-plugin's plugin map.
const echoPluginName = "echo"

// echoStart bounds an echo server's start (go-plugin's handshake).
const echoStart = 20 * time.Second

// echoLifelineFD is the gRPC echo server's descriptor whose EOF (the bench is gone) stops
// it; EchoLifelineEnv announces it.
const (
	echoLifelineFD  = 3
	EchoLifelineEnv = "CWX_BENCH_ECHO_LIFELINE"
)

// EchoHandshake is go-plugin's handshake of the gRPC echo server: its own cookie, so the
// echo never answers as a shim and a shim never as the echo.
var EchoHandshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "CWX_BENCH_ECHO_COOKIE",
	MagicCookieValue: "cwx-bench-grpc-echo-v1",
}

// EchoOptions are the knobs of one gRPC echo: the transport settings (both sides use the
// same, as the core and the shim do) and the server's GOMAXPROCS (0 leaves Go's default).
type EchoOptions struct {
	Transport  shared.Transport
	GOMAXPROCS int
}

// Args are the echo server's arguments after `cwx bench grpc-echo`, which
// ParseEchoArgs reads back.
func (o EchoOptions) Args() []string {
	return []string{strconv.Itoa(o.Transport.ReadBuffer), strconv.Itoa(o.Transport.WriteBuffer),
		strconv.FormatBool(o.Transport.OwnWriteBuffer), strconv.Itoa(o.GOMAXPROCS)}
}

// ParseEchoArgs reads what Args wrote.
func ParseEchoArgs(args []string) (EchoOptions, error) {
	var o EchoOptions
	if len(args) != 4 {
		return o, fmt.Errorf("grpc-echo takes 4 arguments (read buffer, write buffer, own write buffer, GOMAXPROCS), got %d", len(args))
	}
	var errs [4]error
	o.Transport.ReadBuffer, errs[0] = strconv.Atoi(args[0])
	o.Transport.WriteBuffer, errs[1] = strconv.Atoi(args[1])
	o.Transport.OwnWriteBuffer, errs[2] = strconv.ParseBool(args[2])
	o.GOMAXPROCS, errs[3] = strconv.Atoi(args[3])
	return o, errors.Join(errs[:]...)
}

// ServeGRPCEcho is `cwx bench grpc-echo`: go-plugin's server with the Channel answered by an
// echo, until the bench's client kills it or its lifeline (fd 3) ends.
func ServeGRPCEcho(o EchoOptions) error {
	if o.GOMAXPROCS > 0 {
		runtime.GOMAXPROCS(o.GOMAXPROCS)
	}
	var mu sync.Mutex
	var srv *grpc.Server
	stop := func() {
		mu.Lock()
		defer mu.Unlock()
		if srv != nil {
			srv.Stop()
		}
	}
	lifeDone := make(chan struct{})
	if os.Getenv(EchoLifelineEnv) == strconv.Itoa(echoLifelineFD) {
		// non-blocking before os.NewFile, so the file is polled and its Close ends the read
		if err := syscall.SetNonblock(echoLifelineFD, true); err != nil {
			return fmt.Errorf("the echo's lifeline: %w", err)
		}
		life := os.NewFile(echoLifelineFD, "lifeline")
		go func() { // joined below, once Serve has returned and the lifeline is closed
			defer close(lifeDone)
			_, _ = io.Copy(io.Discard, life)
			stop()
		}()
		defer func() {
			_ = life.Close()
			<-lifeDone
		}()
	} else {
		close(lifeDone)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: EchoHandshake,
		Plugins:         map[string]plugin.Plugin{echoPluginName: &echoPlugin{}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			mu.Lock()
			defer mu.Unlock()
			srv = grpc.NewServer(append(opts, o.Transport.ServerOptions()...)...)
			return srv
		},
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Error, Output: os.Stderr, JSONFormat: true}),
	})
	return nil
}

// echoPlugin is the go-plugin glue of the echo: the server registers echoServer, the client
// is the generated Shim client.
type echoPlugin struct{ plugin.NetRPCUnsupportedPlugin }

func (echoPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	shimv1.RegisterShimServer(s, echoServer{})
	return nil
}

func (echoPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return shimv1.NewShimClient(c), nil
}

// echoServer answers each Frame of the Channel with an Event carrying it.
type echoServer struct{ shimv1.UnimplementedShimServer }

func (echoServer) Channel(s shimv1.Shim_ChannelServer) error {
	for {
		f, err := s.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := s.Send(&shimv1.Event{Kind: &shimv1.Event_Frame{Frame: f}}); err != nil {
			return err
		}
	}
}

// GRPCEcho is the bench's side of a gRPC echo: go-plugin's client of `cwx bench grpc-echo`
// and its open Channel stream.
type GRPCEcho struct {
	client   *plugin.Client
	lifeline *os.File
	sockDir  string
	cancel   context.CancelFunc
	stream   shimv1.Shim_ChannelClient
	frame    shimv1.Frame
	pid      int
}

// StartGRPCEcho starts exe as `bench grpc-echo` with o through go-plugin (plaintext gRPC on
// a unix socket in a 0700 folder of its own, as the core starts a shim) and opens the
// Channel.
func StartGRPCEcho(ctx context.Context, exe string, o EchoOptions) (_ *GRPCEcho, err error) {
	dir, err := os.MkdirTemp("", "cwx-echo-")
	if err != nil {
		return nil, err
	}
	e := &GRPCEcho{sockDir: dir}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close() // the echo server holds its own copy
	e.lifeline = w
	cmd := exec.Command(exe, append([]string{"bench", "grpc-echo"}, o.Args()...)...)
	cmd.Env = echoEnv("PLUGIN_UNIX_SOCKET_DIR="+dir, EchoLifelineEnv+"="+strconv.Itoa(echoLifelineFD))
	cmd.ExtraFiles = []*os.File{r}
	e.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  EchoHandshake,
		Plugins:          map[string]plugin.Plugin{echoPluginName: &echoPlugin{}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		SkipHostEnv:      true,
		StartTimeout:     echoStart,
		Logger:           hclog.New(&hclog.LoggerOptions{Level: hclog.Error, Output: os.Stderr}),
		GRPCDialOptions:  o.Transport.DialOptions(),
	})
	rpc, err := e.client.Client()
	if err != nil {
		return nil, fmt.Errorf("start the gRPC echo: %w", err)
	}
	if cmd.Process != nil {
		e.pid = cmd.Process.Pid
	}
	raw, err := rpc.Dispense(echoPluginName)
	if err != nil {
		return nil, fmt.Errorf("dispense the gRPC echo: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	e.cancel = cancel
	if e.stream, err = raw.(shimv1.ShimClient).Channel(sctx); err != nil {
		return nil, fmt.Errorf("open the gRPC echo's channel: %w", err)
	}
	return e, nil
}

// Trip sends payload as one Frame and reads the echo back.
func (e *GRPCEcho) Trip(payload []byte) error {
	e.frame.Data, e.frame.First, e.frame.Size = payload, true, uint32(len(payload))
	if err := e.stream.Send(&e.frame); err != nil {
		return fmt.Errorf("gRPC echo send: %w", err)
	}
	ev, err := e.stream.Recv()
	if err != nil {
		return fmt.Errorf("gRPC echo receive: %w", err)
	}
	if n := len(ev.GetFrame().GetData()); n != len(payload) {
		return fmt.Errorf("gRPC echo answered %d bytes, want %d", n, len(payload))
	}
	return nil
}

// Close ends the stream, stops the echo server (go-plugin's kill, then the lifeline) and
// removes its socket folder.
func (e *GRPCEcho) Close() {
	if e.cancel != nil {
		e.cancel()
	}
	if e.client != nil {
		e.client.Kill()
	}
	if e.lifeline != nil {
		_ = e.lifeline.Close()
	}
	_ = os.RemoveAll(e.sockDir)
}

// PipeEcho is the bench's side of `cwx bench pipe-echo`: a process that copies its stdin to
// its stdout.
type PipeEcho struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.ReadCloser
	buf []byte
}

// StartPipeEcho starts exe as `bench pipe-echo`.
func StartPipeEcho(exe string) (*PipeEcho, error) {
	cmd := exec.Command(exe, "bench", "pipe-echo")
	cmd.Env = echoEnv()
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the pipe echo: %w", err)
	}
	return &PipeEcho{cmd: cmd, in: in, out: out, buf: make([]byte, EchoSize)}, nil
}

// Trip writes payload (at most EchoSize bytes) and reads it back.
func (p *PipeEcho) Trip(payload []byte) error {
	if _, err := p.in.Write(payload); err != nil {
		return fmt.Errorf("pipe echo write: %w", err)
	}
	if _, err := io.ReadFull(p.out, p.buf[:len(payload)]); err != nil {
		return fmt.Errorf("pipe echo read: %w", err)
	}
	return nil
}

// Close ends the echo (its stdin closes) and reaps it.
func (p *PipeEcho) Close() error {
	return errors.Join(p.in.Close(), p.cmd.Wait())
}

// ServePipeEcho is `cwx bench pipe-echo`: stdin copied to stdout until stdin ends.
func ServePipeEcho(in io.Reader, out io.Writer) error {
	buf := make([]byte, 64<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// echoEnv is an echo server's whole environment: extra, and the test suite's process
// marker when set (shared/testenv), so a leftover echo fails the run that left it.
func echoEnv(extra ...string) []string {
	env := append([]string{"PATH=/usr/bin:/bin"}, extra...)
	if m := os.Getenv("CWX_TEST_RUN_MARKER"); m != "" {
		env = append(env, "CWX_TEST_RUN_MARKER="+m)
	}
	return env
}
