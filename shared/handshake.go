package shared

import (
	"context"
	"os"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/experimental"

	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

const (
	// CookieKey and CookieValue are go-plugin's magic cookie. The shim refuses to run without
	// it (it is a guard against running `cwx nodeshim` by hand, not a security measure).
	CookieKey   = "CWX_PLUGIN_COOKIE"
	CookieValue = "3b1f0c7e-cwx-nodeshim-v1"
	// ProtocolVersion names shared/proto/shimv1.
	ProtocolVersion = 1
	// PluginName is the key of the shim in the plugin map.
	PluginName = "nodeshim"
	// Subcommand is the hidden argv[1] that makes the cwx binary act as the shim.
	Subcommand = "nodeshim"
	// DropPrivilegesMode is the word after Subcommand that makes the cwx binary, started by
	// bubblewrap inside the sandbox, drop to an unprivileged uid and gid, change into a
	// folder and exec the runtime: `cwx nodeshim drop-privileges <uid>:<gid> <dir> -- <argv>`.
	DropPrivilegesMode = "drop-privileges"
	// KeeperMode is the word after Subcommand that makes the cwx binary the keeper of one
	// MCP server: `cwx nodeshim keep -- <argv>` runs argv as its child and ends it, and
	// every process it left, when the core's lifeline (LifelineFD) reaches EOF.
	KeeperMode = "keep"
	// ParentPIDEnv is set in the runtime's environment to the shim's pid.
	ParentPIDEnv = "CWX_HOST_PARENT_PID"
	// LogLevelEnv tells the shim which hclog level to log at (default "info").
	LogLevelEnv = "CWX_SHIM_LOG_LEVEL"
	// CPUProfileEnv, set in the core's environment, makes every shim write a CPU profile
	// to <value>.<tier>.<pid> when it exits (a measuring aid; see BENCHMARKS.md).
	CPUProfileEnv = "CWX_SHIM_CPUPROFILE"
	// PartSize is the largest payload part sent in one gRPC message.
	PartSize = 256 << 10
	// MaxMessage is the gRPC message limit on both sides: a whole frame.MaxPayload payload plus
	// protobuf overhead.
	MaxMessage = frame.MaxPayload + 64<<10
	// LifelineFD is the shim's file descriptor whose EOF means the core is gone; the core
	// sets LifelineEnv=3 when it passes one.
	LifelineFD  = 3
	LifelineEnv = "CWX_SHIM_LIFELINE"
	// SnapshotFD is the shim's descriptor holding a Node startup snapshot the core opened and
	// verified (ARCHITECTURE.md, “Host snapshot”); the core sets SnapshotEnv=4 when it passes
	// one, and the shim hands it to the runtime as its fd 7 (core/runtime's SnapshotFD).
	SnapshotFD  = 4
	SnapshotEnv = "CWX_SHIM_SNAPSHOT"
	// MemoryLimitPhrase starts the exit reason the shim reports when the runtime died of
	// running out of memory; the supervisor tests for it so it does not add its own hint twice.
	MemoryLimitPhrase = "the runtime exceeded its memory limit"
)

// Handshake is go-plugin's handshake for the shim.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   CookieKey,
	MagicCookieValue: CookieValue,
}

// Invoked reports whether this process was started by the core as the shim: argv[1] is the
// hidden subcommand and go-plugin's magic cookie is set.
func Invoked(args []string) bool {
	return len(args) > 1 && args[1] == Subcommand && os.Getenv(CookieKey) == CookieValue
}

// PluginMap is the core's plugin map: it only dispenses clients.
func PluginMap() map[string]plugin.Plugin {
	return map[string]plugin.Plugin{PluginName: &ShimPlugin{}}
}

// ServerPluginMap is the shim's plugin map, serving srv.
func ServerPluginMap(srv shimv1.ShimServer) map[string]plugin.Plugin {
	return map[string]plugin.Plugin{PluginName: &ShimPlugin{Impl: srv}}
}

// ShimPlugin is the go-plugin glue. Impl is set on the shim side only.
type ShimPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl shimv1.ShimServer
}

// GRPCServer registers the shim's service.
func (p *ShimPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	shimv1.RegisterShimServer(s, p.Impl)
	return nil
}

// GRPCClient returns a *Client. ctx is go-plugin's done context: it ends when the shim
// process has exited.
func (p *ShimPlugin) GRPCClient(ctx context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{api: shimv1.NewShimClient(c), done: ctx}, nil
}

// Transport are the gRPC transport settings of the Channel's connection, the same on both
// sides: the buffers of the connection's reader and writer, and whether the writer keeps a
// buffer of its own per connection instead of grpc-go's default, a buffer taken from a pool
// for each write and given back after it. [DefaultTransport] is what the core and the shim
// use; `cwx bench`'s gRPC echo takes others to measure them side by side (BENCHMARKS.md, “The
// hop against bare echoes”).
type Transport struct {
	ReadBuffer     int
	WriteBuffer    int
	OwnWriteBuffer bool
}

// DefaultTransport are the core's and the shim's transport settings.
var DefaultTransport = Transport{ReadBuffer: bufSize, WriteBuffer: bufSize}

// ServerOptions are the shim's gRPC server options: message limits of MaxMessage,
// flow-control windows sized so a 1 MiB payload does not wait for window updates,
// [DefaultTransport], and the non-zeroing buffer pool (pool.go).
func ServerOptions(opts []grpc.ServerOption) *grpc.Server {
	return grpc.NewServer(append(opts, DefaultTransport.ServerOptions()...)...)
}

// DialOptions are the core's gRPC options (appended to go-plugin's), matching ServerOptions.
func DialOptions() []grpc.DialOption { return DefaultTransport.DialOptions() }

// ServerOptions are a server's options with the transport settings t.
func (t Transport) ServerOptions() []grpc.ServerOption {
	o := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessage),
		grpc.MaxSendMsgSize(MaxMessage),
		grpc.InitialWindowSize(window),
		grpc.InitialConnWindowSize(window),
		grpc.ReadBufferSize(t.ReadBuffer),
		grpc.WriteBufferSize(t.WriteBuffer),
		experimental.BufferPool(pool),
	}
	if t.OwnWriteBuffer {
		//lint:ignore SA1019 the only way to measure grpc-go's former default against its current one
		o = append(o, grpc.SharedWriteBuffer(false))
	}
	return o
}

// DialOptions are a client's options with the transport settings t.
func (t Transport) DialOptions() []grpc.DialOption {
	o := []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessage), grpc.MaxCallSendMsgSize(MaxMessage)),
		grpc.WithInitialWindowSize(window),
		grpc.WithInitialConnWindowSize(window),
		grpc.WithReadBufferSize(t.ReadBuffer),
		grpc.WithWriteBufferSize(t.WriteBuffer),
		experimental.WithBufferPool(pool),
	}
	if t.OwnWriteBuffer {
		//lint:ignore SA1019 the only way to measure grpc-go's former default against its current one
		o = append(o, grpc.WithSharedWriteBuffer(false))
	}
	return o
}

const (
	window  = 4 << 20
	bufSize = 64 << 10
)
