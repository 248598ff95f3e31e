package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/shared"
)

// incarnation is one shim process and the runtime it spawned: one generation of a tier.
type incarnation struct {
	gen     uint64
	opts    *Options
	started time.Time

	sockDir  string
	lifeline *os.File // write end; closing it tells the shim the core is gone
	cmd      *exec.Cmd
	client   *plugin.Client
	shim     *shared.Client
	ch       *shared.Channel // the peer's Conn; closing it tears the stream down
	peer     *rpc.Peer
	conn     *hangConn     // the peer's Conn: inc.ch, read so a heartbeat kill reads as one
	peerDone chan struct{} // Run returned
	shimPID  int
	snapshot *os.File // the verified snapshot for the shim to pass on; closed once the shim has it
	fromSnap bool     // the runtime starts from o.Snapshot, or runs o.Bytecode
	rt       shared.Started
	shimUp   time.Time // go-plugin handshake done
	rtUp     time.Time // runtime spawned

	hello     chan *protocol.HelloParams // first host/hello
	readyNote chan struct{}              // host/ready arrived
	helloOnce sync.Once
	readyOnce sync.Once

	activating activations // owners whose ext/activate is in flight
	planned    atomic.Bool // ended by Stop or a planned restart, not a crash
	blocked    atomic.Bool // killed because an ext/activate went unanswered (Host.Activate)
	killOnce   sync.Once   // go-plugin's Client.Kill, run once

	reasonMu sync.Mutex
	// reason is why the core killed it for not answering (the heartbeat, Host.Activate).
	reason string // +checklocks:reasonMu
	// busy is the owner the host's watchdog last named with host/busy, nil once the host
	// said that callback returned: whose code held the event loop (ExitInfo.Busy).
	busy *protocol.OwnerRef // +checklocks:reasonMu
}

// noteBusy records a host/busy: the owner whose callback holds the event loop, or nil.
func (inc *incarnation) noteBusy(o *protocol.OwnerRef) {
	inc.reasonMu.Lock()
	defer inc.reasonMu.Unlock()
	inc.busy = o
}

// busyOwner is the owner of the last host/busy, nil when none is outstanding.
func (inc *incarnation) busyOwner() *protocol.OwnerRef {
	inc.reasonMu.Lock()
	defer inc.reasonMu.Unlock()
	return inc.busy
}

// spawn starts the shim, opens the Channel, starts the runtime and the peer. On error
// everything it started is torn down.
func spawn(ctx context.Context, o *Options, gen uint64, handler func(*incarnation) rpc.Handler) (inc *incarnation, err error) {
	inc = &incarnation{gen: gen, opts: o, started: o.Clock.Now(),
		hello: make(chan *protocol.HelloParams, 1), readyNote: make(chan struct{}), peerDone: make(chan struct{})}
	defer func() {
		if err != nil {
			if ctx.Err() != nil {
				inc.planned.Store(true) // Stop abandoned the start
			}
			inc.hardStop(context.Background())
		}
	}()
	verified := inc.openSnapshot()
	err = inc.startShim()
	inc.fromSnap = verified() // joined on every path
	if inc.snapshot != nil {
		_ = inc.snapshot.Close() // the shim holds its own copy
		inc.snapshot = nil
	}
	if err != nil {
		return inc, err
	}
	inc.shimUp = o.Clock.Now()
	if inc.ch, err = inc.shim.OpenChannel(context.Background()); err != nil {
		return inc, err
	}
	script := o.BundlePath
	if inc.fromSnap && o.Bytecode != nil {
		script = o.Bytecode.Script
	}
	plan := o.Runtime.LaunchPlan(script, string(o.Tier), o.MemoryLimitBytes, o.ExtraEnv)
	if inc.fromSnap && o.Snapshot != nil {
		plan = plan.WithSnapshot()
	}
	if o.Sandbox != nil {
		plan = plan.Wrap(*o.Sandbox)
	}
	if inc.rt, err = inc.shim.Start(ctx, shared.LaunchPlan{
		Argv: plan.Argv, Env: plan.Env, Dir: o.Dir, MemoryLimitBytes: plan.MemoryLimitBytes, SeccompFilter: plan.Seccomp,
	}); err != nil {
		return inc, fmt.Errorf("start the %s runtime: %w", o.Runtime.Kind, err)
	}
	inc.rtUp = o.Clock.Now()
	inc.conn = &hangConn{Channel: inc.ch, tier: o.Tier}
	inc.peer = rpc.New(inc.conn, o.Tier, handler(inc), rpc.Options{Logger: o.Logger.Named("rpc")})
	go func() {
		defer close(inc.peerDone)
		_ = inc.peer.Run(context.Background())
	}()
	return inc, nil
}

// openSnapshot opens the options' snapshot for this incarnation, for startShim to pass on,
// and hashes it (or the Bun bytecode cache) on a goroutine while the shim starts; verified
// joins that goroutine and says whether the hash matched. Only then does the launch plan name
// the snapshot or the bytecode's script: on any failure the runtime starts from the bundle
// (ARCHITECTURE.md, “Host snapshot”), and the shim, which passes the descriptor only to a
// runtime whose argv names it, leaves it out.
func (inc *incarnation) openSnapshot() (verified func() bool) {
	log := inc.opts.Logger
	if c := inc.opts.Bytecode; c != nil {
		return verifyWhileShimStarts(log, "host bytecode", c.Key, c.ScriptSize+c.CodeSize, c.Verify)
	}
	s := inc.opts.Snapshot
	if s == nil {
		return func() bool { return false }
	}
	f, err := s.Open()
	if err != nil {
		log.Debug("host snapshot not used; starting from the bundle", "reason", err)
		return func() bool { return false }
	}
	inc.snapshot = f
	return verifyWhileShimStarts(log, "host snapshot", s.Key, s.Size, func() (time.Duration, error) { return s.Verify(f) })
}

// verifyWhileShimStarts runs verify on a goroutine; the function it returns joins it, logs a
// failure at debug level and says whether verify passed.
func verifyWhileShimStarts(log hclog.Logger, what, key string, bytes int64, verify func() (time.Duration, error)) func() bool {
	done := make(chan error, 1)
	go func() {
		took, err := verify()
		if err == nil {
			log.Debug(what+" verified", "key", key[:12], "bytes", bytes, "sha256_ms", float64(took.Microseconds())/1000)
		}
		done <- err
	}()
	return func() bool {
		err := <-done
		if err != nil {
			log.Debug(what+" not used; starting from the bundle", "reason", err)
		}
		return err == nil
	}
}

// helloSHA256 is the digest this incarnation's hello must report: the snapshot's or the
// bytecode's entry when it starts from one, else the bundle's.
func (inc *incarnation) helloSHA256() string {
	switch {
	case inc.fromSnap && inc.opts.Bytecode != nil:
		return inc.opts.Bytecode.EntrySHA256
	case inc.fromSnap:
		return inc.opts.Snapshot.EntrySHA256
	}
	return inc.opts.BundleSHA256
}

// startShim launches `cwx nodeshim --tier=...` through a fresh go-plugin client.
func (inc *incarnation) startShim() error {
	o := inc.opts
	dir, err := os.MkdirTemp(o.SocketDir, "cwx-"+string(o.Tier)+"-")
	if err != nil {
		return fmt.Errorf("create the shim's socket directory: %w", err)
	}
	inc.sockDir = dir
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restrict the shim's socket directory: %w", err)
	}
	if err := checkPrivateDir(dir, os.Geteuid()); err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("create the shim's lifeline: %w", err)
	}
	inc.lifeline = w
	defer r.Close() // the shim holds its own copy
	cmd := exec.Command(o.ShimPath, shared.Subcommand, "--tier="+string(o.Tier))
	cmd.Env = shimEnv(dir)
	cmd.ExtraFiles = []*os.File{r}
	if inc.snapshot != nil { // spawn closes it once the shim has its copy and the hash is done
		cmd.ExtraFiles = append(cmd.ExtraFiles, inc.snapshot) // fd 4, shared.SnapshotFD
		cmd.Env = append(cmd.Env, shared.SnapshotEnv+"="+strconv.Itoa(shared.SnapshotFD))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	inc.cmd = cmd
	inc.client = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		Plugins:          shared.PluginMap(),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         o.autoMTLS,
		Managed:          false,
		SkipHostEnv:      true,
		StartTimeout:     o.StartTimeout,
		Logger:           shimLogger{Logger: o.Logger.Named("shim"), planned: &inc.planned, killed: func() bool { return inc.killReason() != "" }},
		GRPCDialOptions:  append(shared.DialOptions(), privateDialOption(dir)),
	})
	rpcClient, err := inc.client.Client()
	if err != nil {
		return fmt.Errorf("start the node shim: %w", err)
	}
	if cmd.Process != nil {
		inc.shimPID = cmd.Process.Pid
	}
	raw, err := rpcClient.Dispense(shared.PluginName)
	if err != nil {
		return fmt.Errorf("dispense the node shim: %w", err)
	}
	inc.shim = raw.(*shared.Client)
	return nil
}

// shimEnv is the shim's whole environment (go-plugin adds its own variables).
func shimEnv(sockDir string) []string {
	env := []string{
		"PLUGIN_UNIX_SOCKET_DIR=" + sockDir,
		shared.LifelineEnv + "=" + strconv.Itoa(shared.LifelineFD),
		"TMPDIR=" + sockDir,
	}
	for _, k := range []string{shared.LogLevelEnv, shared.CPUProfileEnv} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if m := os.Getenv(testMarkerEnv); m != "" {
		env = append(env, testMarkerEnv+"="+m) // lets the test suite's /proc scan see shims
	}
	return env
}

// shimGone is closed when the shim process has exited (never, if it did not start).
func (inc *incarnation) shimGone() <-chan struct{} {
	if inc.shim == nil {
		return nil
	}
	return inc.shim.Done()
}

// signalGroups sends sig to the runtime's group and the shim's group (the shim leads its
// session), each only while its leader may still be alive.
func (inc *incarnation) signalGroups(sig syscall.Signal) {
	if inc.rt.PGID > 0 && !inc.runtimeReported() {
		_ = syscall.Kill(-inc.rt.PGID, sig)
	}
	if inc.shimPID > 0 && !inc.shimExited() {
		_ = syscall.Kill(-inc.shimPID, sig)
	}
}

func (inc *incarnation) shimExited() bool {
	if inc.shim == nil {
		return inc.client == nil || inc.client.Exited()
	}
	select {
	case <-inc.shim.Done():
		return true
	default:
		return false
	}
}

// testMarkerEnv marks processes a test run started (shared/testenv); the shim keeps
// it so the suite's /proc scan finds leftovers.
const testMarkerEnv = "CWX_TEST_RUN_MARKER"

// hardStop kills both groups and releases everything: peer, go-plugin client (only once
// the shim is gone), lifeline, socket directory. It is bounded by ctx for waiting on the
// shim's exit.
func (inc *incarnation) hardStop(ctx context.Context) {
	if !inc.runtimeReported() {
		inc.signalGroups(syscall.SIGKILL)
	}
	inc.release(ctx)
}

// release tears down what is left once the processes were told to go: the peer and the
// Channel, then the shim. A shim that reported the runtime's exit is closed through
// go-plugin (Client.Kill: Shutdown, and the shim exits); one that did not was SIGKILLed by
// the caller and is waited for before Client.Kill, which would otherwise block on it.
func (inc *incarnation) release(ctx context.Context) {
	if inc.peer != nil {
		inc.peer.Close(errStopped)
		<-inc.peerDone
	}
	if inc.ch != nil {
		_ = inc.ch.Close()
	}
	if inc.client != nil {
		if !inc.runtimeReported() {
			if gone := inc.shimGone(); gone != nil {
				select {
				case <-gone:
				case <-ctx.Done():
				}
			}
		}
		inc.killClient()
	}
	if inc.lifeline != nil {
		_ = inc.lifeline.Close()
	}
	if inc.sockDir != "" {
		_ = os.RemoveAll(inc.sockDir)
	}
}

// killClient runs go-plugin's Client.Kill once; a second caller waits for the first. The
// stop's join and release both close the client, and when the bounded stop gave up
// waiting they can overlap: a second, concurrent Kill finds the gRPC connection closing,
// takes that for a failed graceful exit and SIGKILLs the shim.
func (inc *incarnation) killClient() { inc.killOnce.Do(inc.client.Kill) }

// runtimeReported reports whether the shim reported the runtime's exit.
func (inc *incarnation) runtimeReported() bool { return inc.ch != nil && inc.ch.Exit() != nil }

var errStopped = errors.New("the tier was stopped")
