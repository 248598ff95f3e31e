package shared

import (
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"

	"github.com/cwx-dev/cwx/shared/frame"
	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// ServerChannel is the shim's side of the Channel stream, spoken with the cwx-frame codec.
// RecvPart may be called from one goroutine and SendPart/SendExit from another.
type ServerChannel struct {
	s   grpc.ServerStream
	in  recvPart
	buf []byte // the last received part's bytes
	out sendPart
}

// NewServerChannel wraps the stream the Channel handler got.
func NewServerChannel(s grpc.ServerStream) *ServerChannel {
	c := &ServerChannel{s: s}
	c.in = recvPart{dest: c.place}
	return c
}

// ErrPartTooLarge is returned by RecvPart for a part above MaxMessage.
var ErrPartTooLarge = errors.New("payload part too large")

func (c *ServerChannel) place(_ bool, _ uint32, n int) ([]byte, error) {
	if n > frame.MaxPayload {
		return nil, fmt.Errorf("%w: %d bytes", ErrPartTooLarge, n)
	}
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	c.buf = c.buf[:n]
	return c.buf, nil
}

// RecvPart returns the core's next payload part: first and size as in shimv1.Frame, and
// data, valid until the next RecvPart. It returns io.EOF once the core closed its side.
func (c *ServerChannel) RecvPart() (first bool, size uint32, data []byte, err error) {
	if err := c.s.RecvMsg(&c.in); err != nil {
		return false, 0, nil, err
	}
	return c.in.first, c.in.size, c.buf, nil
}

// PartBuffer returns a buffer of n bytes for SendPart; its contents are unspecified.
func PartBuffer(n int) *[]byte { return pool.Get(n) }

// SendPart sends one part of a payload to the core. buf (from PartBuffer) is handed over:
// gRPC returns it to the pool once written, so the caller must not touch it again.
func (c *ServerChannel) SendPart(first bool, size uint32, buf *[]byte) error {
	c.out = sendPart{event: true, first: first, size: size, data: mem.NewBuffer(buf, pool)}
	return c.s.SendMsg(&c.out)
}

// SendExit sends the runtime's exit, the Channel's last event.
func (c *ServerChannel) SendExit(x *shimv1.Exit) error {
	return c.s.SendMsg(&shimv1.Event{Kind: &shimv1.Event_Exit{Exit: x}})
}
