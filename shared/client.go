package shared

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"

	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// LaunchPlan says how the shim starts the runtime.
type LaunchPlan struct {
	Argv             []string
	Env              []string
	Dir              string
	MemoryLimitBytes uint64 // RLIMIT_DATA; 0 means the shim's default (1 GiB)
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
		Argv: p.Argv, Env: p.Env, Dir: p.Dir, MemoryLimitBytes: p.MemoryLimitBytes,
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

// OpenChannel opens the payload stream. Cancel ctx to tear it down.
func (c *Client) OpenChannel(ctx context.Context) (*Channel, error) {
	s, err := c.api.Channel(ctx)
	if err != nil {
		return nil, fmt.Errorf("shim channel: %w", err)
	}
	return &Channel{s: s}, nil
}

// ErrRuntimeExited is returned by Channel.Recv after the shim reported the runtime's exit;
// Channel.Exit then returns the report.
var ErrRuntimeExited = errors.New("runtime exited")

// Channel is one incarnation's payload stream. Send may be called from one goroutine at a
// time and Recv from one (they may run concurrently); it satisfies core/rpc's Conn.
type Channel struct {
	s    shimv1.Shim_ChannelClient
	sent shimv1.Frame // reused: the stream marshals before Send returns

	mu   sync.Mutex
	exit *Exit
}

// Send sends one payload, split into parts of at most PartSize bytes.
func (ch *Channel) Send(ctx context.Context, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f := &ch.sent
	f.First, f.Size = true, uint32(len(payload))
	for {
		n := min(len(payload), PartSize)
		f.Data = payload[:n]
		if err := ch.s.Send(f); err != nil {
			f.Data = nil
			return fmt.Errorf("send to shim: %w", err)
		}
		payload = payload[n:]
		if len(payload) == 0 {
			f.Data = nil
			return nil
		}
		f.First, f.Size = false, 0
	}
}

// CloseSend tells the shim no more payloads follow; it closes the runtime's stdin.
func (ch *Channel) CloseSend() error { return ch.s.CloseSend() }

// Recv returns the next payload. After the runtime's exit it returns an error wrapping
// ErrRuntimeExited (see Exit); a broken stream (the shim died) returns the gRPC error.
func (ch *Channel) Recv() ([]byte, error) {
	var buf []byte
	want, have := 0, 0
	for {
		ev, err := ch.s.Recv()
		if err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("shim closed the channel without reporting the runtime's exit: %w", io.ErrUnexpectedEOF)
			}
			return nil, fmt.Errorf("shim channel: %w", err)
		}
		switch k := ev.Kind.(type) {
		case *shimv1.Event_Exit:
			ch.mu.Lock()
			ch.exit = &Exit{Code: int(k.Exit.Code), Signal: int(k.Exit.Signal), Reason: k.Exit.Reason, StderrTail: k.Exit.StderrTail}
			ch.mu.Unlock()
			return nil, fmt.Errorf("%w: %s", ErrRuntimeExited, ch.exit.String())
		case *shimv1.Event_Frame:
			f := k.Frame
			if f.First {
				if buf != nil {
					return nil, errors.New("shim channel: a payload started before the previous one ended")
				}
				want = int(f.Size)
				if len(f.Data) == want {
					return f.Data, nil // one part: no copy
				}
				buf, have = make([]byte, want), 0
			} else if buf == nil {
				return nil, errors.New("shim channel: a payload part without a start")
			}
			if have+len(f.Data) > want {
				return nil, errors.New("shim channel: payload parts exceed the announced size")
			}
			have += copy(buf[have:], f.Data)
			if have == want {
				return buf, nil
			}
		}
	}
}

// Exit returns the runtime's exit once Recv has seen it, else nil.
func (ch *Channel) Exit() *Exit {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.exit
}
