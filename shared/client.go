package shared

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"

	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// LaunchPlan says how the shim starts the runtime.
type LaunchPlan struct {
	Argv             []string
	Env              []string
	Dir              string
	MemoryLimitBytes uint64 // RLIMIT_DATA; 0 means the shim's default (1 GiB)
	SeccompFilter    []byte // a sandboxed plan's filter, which bubblewrap reads on fd 6
}

// Started describes a runtime the shim spawned.
type Started struct {
	PID, PGID        int
	MemoryLimitBytes uint64 // the RLIMIT_DATA the runtime got
}

// Exit is how a runtime ended, as the shim saw it.
type Exit struct {
	Code       int    // exit status, -1 when ended by a signal
	Signal     int    // signal number, 0 when it exited on its own
	Reason     string // why the shim ended it ("framing violation: ..."), empty otherwise
	StderrTail []byte // the last 8 KiB of the runtime's stderr
}

// String describes the exit for people: "exited with code 3", "killed by signal 9 (killed)"
// and the shim's reason when it ended the runtime.
func (e *Exit) String() string {
	var s string
	if e.Signal != 0 {
		s = fmt.Sprintf("killed by signal %d (%s)", e.Signal, syscall.Signal(e.Signal))
	} else {
		s = fmt.Sprintf("exited with code %d", e.Code)
	}
	if e.Reason != "" {
		s = e.Reason + " (runtime " + s + ")"
	}
	return s
}

// Stats is a snapshot of a shim and its runtime.
type Stats struct {
	ShimPID, ShimPGID       int
	RuntimePID, RuntimePGID int
	ShimRSS, RuntimeRSS     uint64 // bytes
	StderrTail              []byte
	RuntimeRunning          bool
}

// Client is the core's handle on one shim incarnation.
type Client struct {
	api  shimv1.ShimClient
	done context.Context
}

// Done is closed when the shim process has exited (go-plugin's done context).
func (c *Client) Done() <-chan struct{} { return c.done.Done() }

// Start asks the shim to spawn the runtime.
func (c *Client) Start(ctx context.Context, p LaunchPlan) (Started, error) {
	r, err := c.api.Start(ctx, &shimv1.StartRequest{Plan: &shimv1.LaunchPlan{
		Argv: p.Argv, Env: p.Env, Dir: p.Dir, MemoryLimitBytes: p.MemoryLimitBytes, SeccompFilter: p.SeccompFilter,
	}})
	if err != nil {
		return Started{}, fmt.Errorf("shim start: %w", err)
	}
	return Started{PID: int(r.Pid), PGID: int(r.Pgid), MemoryLimitBytes: r.MemoryLimitBytes}, nil
}

// Signal sends sig to the runtime's process group.
func (c *Client) Signal(ctx context.Context, sig syscall.Signal) error {
	if _, err := c.api.Signal(ctx, &shimv1.SignalRequest{Signal: int32(sig)}); err != nil {
		return fmt.Errorf("shim signal: %w", err)
	}
	return nil
}

// Stats asks the shim for pids, memory and the stderr tail.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	r, err := c.api.Stats(ctx, &shimv1.StatsRequest{})
	if err != nil {
		return Stats{}, fmt.Errorf("shim stats: %w", err)
	}
	return Stats{
		ShimPID: int(r.ShimPid), ShimPGID: int(r.ShimPgid),
		RuntimePID: int(r.RuntimePid), RuntimePGID: int(r.RuntimePgid),
		ShimRSS: r.ShimRssBytes, RuntimeRSS: r.RuntimeRssBytes,
		StderrTail: r.StderrTail, RuntimeRunning: r.RuntimeRunning,
	}, nil
}

// OpenChannel opens the payload stream. Close it, or cancel ctx, to tear it down.
func (c *Client) OpenChannel(ctx context.Context) (*Channel, error) {
	ctx, cancel := context.WithCancel(ctx)
	s, err := c.api.Channel(ctx, grpc.CallContentSubtype(CodecName))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("shim channel: %w", err)
	}
	ch := &Channel{s: s, cancel: cancel}
	ch.in = recvPart{event: true, dest: ch.place}
	return ch, nil
}

// ErrRuntimeExited is matched by the error Channel.Recv returns after the shim reported the
// runtime's exit (an *ExitError); Channel.Exit then returns the report.
var ErrRuntimeExited = errors.New("runtime exited")

// ExitError is the runtime's exit as an error: the shim's report, so a caller several
// layers up can still read the exit code or signal with errors.As. It matches
// ErrRuntimeExited.
type ExitError struct{ Exit Exit }

func (e *ExitError) Error() string { return ErrRuntimeExited.Error() + ": " + e.Exit.String() }

// Is makes errors.Is(err, ErrRuntimeExited) true.
func (e *ExitError) Is(target error) bool { return target == ErrRuntimeExited }

// Channel is one incarnation's payload stream. Send may be called from one goroutine at a
// time and Recv from one (they may run concurrently); it satisfies core/rpc's Conn.
type Channel struct {
	s   shimv1.Shim_ChannelClient
	out sendPart // reused: the stream marshals before SendMsg returns

	cancel context.CancelFunc // tears the stream down

	in   recvPart
	buf  []byte // the payload being assembled, nil between payloads
	have int

	mu sync.Mutex
	// +checklocks:mu
	exit *Exit
}

// Send sends one payload, split into parts of at most PartSize bytes. Each part is copied
// once, into a pooled buffer that gRPC releases once written; payload is not retained.
func (ch *Channel) Send(ctx context.Context, payload []byte) error {
	return ch.SendParts(ctx, payload)
}

// SendParts sends one payload given in pieces, in order (a result and its attachment), as
// Send sends them joined: each part of at most PartSize bytes is gathered from the pieces
// into one pooled buffer, so the pieces are never joined first; none is retained.
func (ch *Channel) SendParts(ctx context.Context, pieces ...[]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	size := 0
	for _, b := range pieces {
		size += len(b)
	}
	if size > frame.MaxPayload {
		return fmt.Errorf("send to shim: %w", &frame.SizeError{Size: uint64(size), Limit: frame.MaxPayload})
	}
	p := &ch.out
	p.first, p.size = true, uint32(size)
	i, off := 0, 0 // the next byte to send: pieces[i][off]
	for left := size; ; {
		n := min(left, PartSize)
		buf := pool.Get(n)
		for at := 0; at < n; {
			for off == len(pieces[i]) {
				i, off = i+1, 0
			}
			k := copy((*buf)[at:], pieces[i][off:])
			off += k
			at += k
		}
		p.data = mem.NewBuffer(buf, pool)
		if err := ch.s.SendMsg(p); err != nil {
			return fmt.Errorf("send to shim: %w", err)
		}
		left -= n
		if left == 0 {
			return nil
		}
		p.first, p.size = false, 0
	}
}

// Close tears the stream down: a blocked Recv returns, and the shim sees the channel end.
// It satisfies io.Closer, so the rpc peer closes the Channel when its incarnation ends.
func (ch *Channel) Close() error {
	ch.cancel()
	return nil
}

// CloseSend ends the send side of the gRPC Channel stream: no more payloads follow, and the
// shim closes the runtime's frame input (its fd 3).
func (ch *Channel) CloseSend() error { return ch.s.CloseSend() }

// Recv returns the next payload. After the runtime's exit it returns an *ExitError (it
// matches ErrRuntimeExited; see Exit); a broken stream (the shim died) returns the gRPC
// error.
func (ch *Channel) Recv() ([]byte, error) {
	for {
		if err := ch.s.RecvMsg(&ch.in); err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("shim closed the channel without reporting the runtime's exit: %w", io.ErrUnexpectedEOF)
			}
			return nil, fmt.Errorf("shim channel: %w", err)
		}
		if x := ch.in.exit; x != nil {
			e := &Exit{Code: int(x.Code), Signal: int(x.Signal), Reason: x.Reason, StderrTail: x.StderrTail}
			ch.mu.Lock()
			ch.exit = e
			ch.mu.Unlock()
			return nil, &ExitError{Exit: *e}
		}
		if ch.buf != nil && ch.have == len(ch.buf) {
			p := ch.buf
			ch.buf = nil
			return p, nil
		}
	}
}

// place returns where a received part's n bytes go: the next n bytes of the payload being
// assembled, which a first part allocates at its announced size.
func (ch *Channel) place(first bool, size uint32, n int) ([]byte, error) {
	if first {
		if ch.buf != nil {
			return nil, errors.New("shim channel: a payload started before the previous one ended")
		}
		if size > frame.MaxPayload {
			return nil, fmt.Errorf("shim channel: %w", &frame.SizeError{Size: uint64(size), Limit: frame.MaxPayload})
		}
		ch.buf, ch.have = make([]byte, size), 0
	} else if ch.buf == nil {
		return nil, errors.New("shim channel: a payload part without a start")
	}
	if n > len(ch.buf)-ch.have {
		return nil, errors.New("shim channel: payload parts exceed the announced size")
	}
	d := ch.buf[ch.have : ch.have+n]
	ch.have += n
	return d, nil
}

// Exit returns the runtime's exit once Recv has seen it, else nil.
func (ch *Channel) Exit() *Exit {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.exit
}
