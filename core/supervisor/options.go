package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/snapshot"
)

// Defaults (ARCHITECTURE.md, “Lifecycles and numbers”).
const (
	DefaultHandshakeTimeout = 30 * time.Second
	DefaultShutdownAnswer   = 2 * time.Second // host/shutdown answer and exit
	DefaultKillAfter        = 3 * time.Second // SIGKILL, counted from the start of Stop
	DefaultStartTimeout     = 10 * time.Second
	DefaultHeartbeat        = 3 * time.Second  // host/ping interval
	DefaultUnresponsive     = 3 * time.Second  // unanswered ping -> Unresponsive
	DefaultHangKill         = 10 * time.Second // unanswered ping -> kill
	DefaultRestartBackoff   = 250 * time.Millisecond
	DefaultCrashWindow      = 5 * time.Minute
	DefaultCrashLimit       = 3
	DefaultDirtyWindow      = 10 * time.Minute
	DefaultDirtyLimit       = 2
	stderrTailMax           = 8 << 10
	// DebuggedDeadline replaces every deadline of a Debugged host.
	DebuggedDeadline = 24 * time.Hour
)

// Clock is the supervisor's time source. Its AfterFunc timers run f on their own goroutine.
//
// It stays where testing/synctest replaced the rpc peer's clock. The case synctest cannot
// cover is TestRestartSchedule: it must read the restart delay a crash schedules without the
// restart ever running, because a restart spawns a real shim process, and in a bubble a
// timer fires as soon as the test lets time move (which every step of the schedule must do). The supervisor's other timers guard real
// processes and sockets, whose I/O happens outside any bubble, so their tests use RealClock.
// The core's invocation deadline (core's pauseDeadline) takes this Clock too, for the same
// reason: the test that pauses it runs a real host.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) rpc.Timer
}

// RealClock is the wall clock (and the fake clock inside a testing/synctest bubble).
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc calls time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) rpc.Timer { return time.AfterFunc(d, f) }

// Owners is the owner layer (the Manager's registry side; a fake in tests). The supervisor
// tells it when an incarnation is ready and when it ended, and hands it what the host asks
// of the core.
type Owners interface {
	// HostReady runs after the handshake of generation gen, before the tier reports Ready to
	// its waiters; activation of the tier's owners goes through h.
	HostReady(ctx context.Context, host protocol.HostKey, gen uint64, h *Host) error
	// HostExited reports the end of generation gen: why, and the sole owner that was
	// activating when the host died (to be failed, not replayed).
	HostExited(host protocol.HostKey, gen uint64, info ExitInfo)
	// HandleRequest answers a host request (registry/register, core/call, ...). An error
	// matching rpc.ErrViolation ends the incarnation as a protocol violation.
	HandleRequest(ctx context.Context, host protocol.HostKey, gen uint64, m *protocol.Message) (any, error)
	// HandleNotification takes a host notification other than the handshake's (log,
	// ext/faulted, ...). It must not block.
	HandleNotification(host protocol.HostKey, gen uint64, m *protocol.Message)
}

// ExitInfo describes the end of one incarnation for the owner layer.
type ExitInfo struct {
	Reason error
	// Activating is the owner whose ext/activate (sent with Host.Activate) was in flight
	// when the host died, when exactly one was; nil otherwise.
	Activating *protocol.OwnerRef
	// Planned is true for a stop or a planned restart (not a crash).
	Planned bool
	// Hung is true when the core killed the host for not answering: the heartbeat, or an
	// ext/activate unanswered past the host's own bound.
	Hung bool
	// Blocked is true when that kill came from an unanswered ext/activate (Host.Activate).
	Blocked bool
	// Busy is, for a kill for not answering (Hung), the owner whose callback held the host's
	// event loop then: the host's watchdog named it with host/busy and the host never said
	// that callback returned. nil when the host named none (unattributed).
	Busy *protocol.OwnerRef
}

// Crash reports whether the end counts against the crash budget: every unplanned end but
// a blocked activation attributed to one owner. That one is the plugin's failure, which
// is not replayed; when several activations were in flight, the kill that left them
// suspects was counted, and replaying them one at a time names the culprit without
// counting again (ARCHITECTURE.md, “Lifecycles and numbers”).
func (e ExitInfo) Crash() bool { return !e.Planned && !(e.Blocked && e.Activating != nil) }

// Options configure one host: a tier's shared host, or (Group set) a plugin's own host of
// the plugin tier. Zero durations take the defaults.
type Options struct {
	Tier protocol.Tier
	// Group is the plugin id of a plugin's own host (isolation = "process"); "" is the
	// tier's shared host. The Owners callbacks name the host by both (Host).
	Group            string
	Runtime          runtime.Runtime // resolved and probed runtime
	BundlePath       string          // materialized bundle the runtime runs
	BundleSHA256     string          // its digest, as the hello must report it
	BuiltinModules   []bundle.ModuleDigest
	MemoryLimitBytes uint64   // RLIMIT_DATA; 0 means runtime.DefaultMemoryLimitBytes
	Dir              string   // the runtime's working directory
	ExtraEnv         []string // added to the runtime's environment
	Owners           Owners   // nil: host requests are refused
	// Sandbox, when set, is the bubblewrap profile every incarnation's runtime runs in
	// (ARCHITECTURE.md, “Sandbox”); nil runs it unsandboxed.
	Sandbox *runtime.Profile
	// Snapshot, when set, is the Node startup snapshot each incarnation starts from once
	// Open verifies it (ARCHITECTURE.md, “Host snapshot”); an incarnation whose Open fails
	// starts from the bundle, and says so at debug level.
	Snapshot *snapshot.Blob
	// Bytecode, when set, is the Bun bytecode cache each incarnation runs once Verify
	// passes (ARCHITECTURE.md, “Host snapshot”); an incarnation whose Verify fails runs the
	// bundle, and says so at debug level. Its folder is bound read-only into Sandbox.
	Bytecode *snapshot.Bytecode
	// BeforeLaunch, when set, runs before every incarnation is spawned; its error fails that
	// start with its reason (a plugin's grants re-checked: ARCHITECTURE.md, “Grants”).
	BeforeLaunch func() error

	// ShimPath is the binary re-executed as `<ShimPath> nodeshim --tier=<tier>`; empty
	// means this executable.
	ShimPath string
	// SocketDir is where the private per-incarnation socket directory is made; empty means
	// os.TempDir().
	SocketDir string
	Logger    hclog.Logger
	Clock     Clock

	// autoMTLS runs the shim's gRPC over go-plugin's AutoMTLS; the core leaves it off
	// (ARCHITECTURE.md, “Trust model”), benchmarks turn it on to measure what it costs.
	autoMTLS bool

	HandshakeTimeout time.Duration
	ShutdownAnswer   time.Duration
	KillAfter        time.Duration
	StartTimeout     time.Duration

	HeartbeatInterval time.Duration
	UnresponsiveAfter time.Duration
	HangKillAfter     time.Duration
	RestartBackoff    time.Duration
	CrashWindow       time.Duration
	CrashLimit        int
	DirtyWindow       time.Duration
	DirtyLimit        int

	// Debugged says a debugger may hold the runtime's event loop (`cwx plugin dev --inspect`):
	// the handshake, start, heartbeat and hang deadlines become DebuggedDeadline, so does the
	// host's own activation bound (HostLimits.ActivateDeadlineMS), and Host.Call drops the
	// callers' Timeout (their contexts still apply).
	Debugged bool
}

// Host is the key the Owners callbacks name this host by.
func (o *Options) Host() protocol.HostKey { return protocol.HostKey{Tier: o.Tier, Group: o.Group} }

func (o *Options) withDefaults() (Options, error) {
	c := *o
	if c.Tier != protocol.TierPlugin && c.Tier != protocol.TierBuiltin {
		return c, fmt.Errorf("supervisor: unknown tier %q", c.Tier)
	}
	if c.Group != "" && c.Tier != protocol.TierPlugin {
		return c, fmt.Errorf("supervisor: only the plugin tier has plugins' own hosts, not %q", c.Tier)
	}
	if c.Runtime.Path == "" || c.BundlePath == "" || c.BundleSHA256 == "" {
		return c, errors.New("supervisor: options need a resolved runtime, a bundle path and its digest")
	}
	if c.ShimPath == "" {
		exe, err := os.Executable()
		if err != nil {
			return c, fmt.Errorf("supervisor: find the cwx executable to re-execute as the shim: %w", err)
		}
		c.ShimPath = exe
	}
	if c.BuiltinModules == nil {
		c.BuiltinModules = bundle.BuiltinModules()
	}
	if c.MemoryLimitBytes == 0 {
		c.MemoryLimitBytes = runtime.DefaultMemoryLimitBytes
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.Debugged {
		c.HandshakeTimeout, c.StartTimeout = DebuggedDeadline, DebuggedDeadline
		c.HeartbeatInterval, c.UnresponsiveAfter, c.HangKillAfter = DebuggedDeadline, DebuggedDeadline, DebuggedDeadline
	}
	def(&c.HandshakeTimeout, DefaultHandshakeTimeout)
	def(&c.ShutdownAnswer, DefaultShutdownAnswer)
	def(&c.KillAfter, DefaultKillAfter)
	def(&c.StartTimeout, DefaultStartTimeout)
	def(&c.HeartbeatInterval, DefaultHeartbeat)
	def(&c.UnresponsiveAfter, DefaultUnresponsive)
	def(&c.HangKillAfter, DefaultHangKill)
	def(&c.RestartBackoff, DefaultRestartBackoff)
	def(&c.CrashWindow, DefaultCrashWindow)
	def(&c.DirtyWindow, DefaultDirtyWindow)
	if c.CrashLimit <= 0 {
		c.CrashLimit = DefaultCrashLimit
	}
	if c.DirtyLimit <= 0 {
		c.DirtyLimit = DefaultDirtyLimit
	}
	return c, nil
}
