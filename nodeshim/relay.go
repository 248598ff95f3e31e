package nodeshim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cwx-dev/cwx/shared"
	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// Channel relays payloads until the runtime ends, then reports its Exit.
func (s *server) Channel(stream shimv1.Shim_ChannelServer) error {
	s.mu.Lock()
	if s.channel {
		s.mu.Unlock()
		return status.Error(codes.FailedPrecondition, "a channel is already open")
	}
	s.channel = true
	s.mu.Unlock()
	defer s.repOnce.Do(func() { close(s.reported) })

	select {
	case <-s.started:
	case <-stream.Context().Done():
		return stream.Context().Err()
	}
	p := s.runtime()
	sc := shared.NewServerChannel(stream)
	outDone := make(chan struct{})
	s.sd.Go(func() { s.inbound(sc, p) })
	s.sd.Go(func() { closeOutputAfterExit(p, outDone) })
	err := s.outbound(sc, p)
	close(outDone)
	if err != nil {
		return err // the core is gone; the runtime's group was killed
	}
	return sc.SendExit(s.exitReport(p))
}

// outbound relays the frames the runtime writes on its fd 4 to the core, as parts on the
// gRPC Channel stream, until that pipe ends. A framing violation kills the runtime's group;
// the caller then reports the exit. A send failure (the core is gone) kills the group and is
// returned.
func (s *server) outbound(sc *shared.ServerChannel, p *proc) error {
	r := frame.NewReader(p.chanR)
	for {
		size, err := r.ReadHeader()
		if err == nil {
			err = relayPayload(sc, r, size)
		}
		var sendErr *sendError
		switch {
		case err == nil:
			continue
		case errors.As(err, &sendErr):
			p.kill(syscall.SIGKILL, "the channel to the core broke")
			return sendErr.err
		case errors.Is(err, io.EOF):
			return s.awaitExit(p)
		case errors.Is(err, frame.ErrBadMagic), errors.Is(err, frame.ErrTooLarge), errors.Is(err, frame.ErrTruncated):
			p.kill(syscall.SIGKILL, "framing violation: "+err.Error())
			s.log.Warn("framing violation, runtime killed", "error", err)
			return s.awaitExit(p)
		default: // the pipe broke (closed after the drain grace)
			return s.awaitExit(p)
		}
	}
}

type sendError struct{ err error }

func (e *sendError) Error() string { return "send to core: " + e.err.Error() }

// relayPayload reads a payload in parts of at most PartSize, each into a pooled buffer
// that is handed to gRPC as is (no copy) and returns to the pool once written.
func relayPayload(sc *shared.ServerChannel, r *frame.Reader, size int) error {
	first, announced := true, uint32(size)
	for left := size; ; {
		n := min(left, shared.PartSize)
		buf := shared.PartBuffer(n)
		if err := r.ReadPayload(*buf); err != nil {
			return err
		}
		if err := sc.SendPart(first, announced, buf); err != nil {
			return &sendError{err}
		}
		left -= n
		if left == 0 {
			return nil
		}
		first, announced = false, 0
	}
}

// awaitExit waits for the runtime to be reaped once its frame output (fd 4) ended. A runtime
// that closed that pipe but lives on can no longer answer the core and is killed after a
// grace. Once reaped, its group is killed so nothing a plugin started outlives it.
func (s *server) awaitExit(p *proc) error {
	t := time.NewTimer(termGrace)
	defer t.Stop()
	select {
	case <-p.waited:
	case <-t.C:
		p.kill(syscall.SIGKILL, "the runtime closed its frame output (fd 4) but did not exit")
		<-p.waited
	}
	p.kill(syscall.SIGKILL, "")
	return nil
}

// stderrGrace bounds waiting for the runtime's last stderr bytes before reporting.
const stderrGrace = 250 * time.Millisecond

func (s *server) exitReport(p *proc) *shimv1.Exit {
	t := time.NewTimer(stderrGrace)
	defer t.Stop()
	select { // the tail should include what the runtime wrote just before it ended
	case <-p.stderrDone:
	case <-t.C:
	}
	code, sig := p.status()
	tail := s.stderr.Bytes()
	reason := p.killReason()
	if reason == "" { // it ended on its own: name the memory limit when that is what ended it
		reason = memoryReason(code, sig, tail, p.limit, p.heapMiB, p.dataPeak())
	}
	return &shimv1.Exit{Code: int32(code), Signal: int32(sig), Reason: reason, StderrTail: tail}
}

// inbound writes the payloads the core sends on the gRPC Channel stream to the runtime's
// fd 3 as CWX1 frames. The core closing its send side closes that pipe; a write failure (the
// runtime is gone) drops further payloads until the stream ends.
func (s *server) inbound(sc *shared.ServerChannel, p *proc) {
	defer p.chanW.Close()
	w := bufio.NewWriterSize(p.chanW, 64<<10)
	var hdr [frame.HeaderSize]byte
	broken := false
	want := 0
	for {
		first, size, data, err := sc.RecvPart()
		if err != nil {
			return
		}
		if broken {
			continue
		}
		if err := writePart(w, hdr[:0], first, size, data, &want); err != nil {
			broken = true
			s.log.Debug("the runtime's frame input (fd 3) is closed", "error", err)
		}
	}
}

// writePart writes one part; want tracks the bytes still expected for the current payload.
func writePart(w *bufio.Writer, hdr []byte, first bool, size uint32, data []byte, want *int) error {
	if first {
		if *want != 0 {
			return fmt.Errorf("payload started with %d bytes of the previous one missing", *want)
		}
		h, err := frame.AppendHeader(hdr, int(size))
		if err != nil {
			return err
		}
		if _, err := w.Write(h); err != nil {
			return err
		}
		*want = int(size)
	}
	if len(data) > *want {
		return fmt.Errorf("payload part of %d bytes exceeds the %d announced", len(data), *want)
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	*want -= len(data)
	if *want == 0 {
		return w.Flush()
	}
	return nil
}

// closeOutputAfterExit closes the read end of the runtime's frame output (fd 4) if the relay
// has not finished drainGrace after the runtime was reaped (a descendant that left the group
// may hold the pipe open).
func closeOutputAfterExit(p *proc, outDone <-chan struct{}) {
	select {
	case <-outDone:
		return
	case <-p.waited:
	}
	t := time.NewTimer(drainGrace)
	defer t.Stop()
	select {
	case <-outDone:
	case <-t.C:
		_ = p.chanR.Close()
	}
}
