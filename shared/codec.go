package shared

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// CodecName is the gRPC content subtype of the Channel stream
// ("application/grpc+cwx-frame"). Its codec writes and reads exactly the protobuf encoding
// of shimv1.Frame and shimv1.Event, so shim.proto stays the contract, without protobuf's
// intermediate buffers: a received part's bytes are copied once, from gRPC's receive
// buffers to where they belong (the payload being assembled in the core, the shim's write
// buffer), and a sent part leaves from a pooled buffer that gRPC returns once written.
// Other messages fall back to protobuf.
const CodecName = "cwx-frame"

func init() { encoding.RegisterCodecV2(frameCodec{}) }

// Field tags (number<<3 | wire type) of shimv1.Frame and shimv1.Event.
const (
	wireVarint = 0
	wireBytes  = 2

	tagFrameData  = 1<<3 | wireBytes
	tagFrameFirst = 2<<3 | wireVarint
	tagFrameSize  = 3<<3 | wireVarint
	tagEventFrame = 1<<3 | wireBytes
	tagEventExit  = 2<<3 | wireBytes
)

// sendPart is one payload part to send: a shimv1.Frame (core to shim), or a shimv1.Event
// holding that Frame (shim to core). Marshal hands data to gRPC, which frees it once
// written.
type sendPart struct {
	event bool
	first bool
	size  uint32
	data  mem.Buffer
}

// recvPart receives a shimv1.Frame, or a shimv1.Event when event is set. The part's bytes
// are copied into the slice dest returns for (first, size, n); dest's error fails the
// receive.
type recvPart struct {
	event bool
	dest  func(first bool, size uint32, n int) ([]byte, error)

	first bool
	size  uint32
	n     int
	exit  *shimv1.Exit // set when the Event was the runtime's Exit
}

type frameCodec struct{}

func (frameCodec) Name() string { return CodecName }

func (frameCodec) Marshal(v any) (mem.BufferSlice, error) {
	switch m := v.(type) {
	case *sendPart:
		return m.marshal(), nil
	case proto.Message:
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("cwx-frame codec: %w", err)
		}
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return nil, fmt.Errorf("cwx-frame codec: cannot marshal %T", v)
}

func (frameCodec) Unmarshal(data mem.BufferSlice, v any) error {
	switch m := v.(type) {
	case *recvPart:
		return m.unmarshal(data)
	case proto.Message:
		if err := proto.Unmarshal(data.Materialize(), m); err != nil {
			return fmt.Errorf("cwx-frame codec: %w", err)
		}
		return nil
	}
	return fmt.Errorf("cwx-frame codec: cannot unmarshal into %T", v)
}

// marshal encodes the Frame's scalar fields, then its data; proto3 defaults are omitted
// as protobuf does.
func (p *sendPart) marshal() mem.BufferSlice {
	n := p.data.Len()
	var fields [16]byte
	f := fields[:0]
	if p.first {
		f = protowire.AppendVarint(append(f, tagFrameFirst), 1)
	}
	if p.size != 0 {
		f = protowire.AppendVarint(append(f, tagFrameSize), uint64(p.size))
	}
	frameLen := len(f)
	if n > 0 {
		frameLen += 1 + protowire.SizeVarint(uint64(n)) + n
	}
	hdr := make([]byte, 0, 32)
	if p.event {
		hdr = protowire.AppendVarint(append(hdr, tagEventFrame), uint64(frameLen))
	}
	hdr = append(hdr, f...)
	if n == 0 {
		p.data.Free()
		return mem.BufferSlice{mem.SliceBuffer(hdr)}
	}
	hdr = protowire.AppendVarint(append(hdr, tagFrameData), uint64(n))
	return mem.BufferSlice{mem.SliceBuffer(hdr), p.data}
}

var errTruncated = errors.New("cwx-frame codec: truncated message")

func (p *recvPart) unmarshal(s mem.BufferSlice) error {
	p.first, p.size, p.n, p.exit = false, 0, 0, nil
	c := cursor{bufs: s, left: s.Len()}
	if !p.event {
		return p.frame(c)
	}
	for c.left > 0 {
		tag, err := c.varint()
		if err != nil {
			return err
		}
		switch tag {
		case tagEventFrame, tagEventExit:
			sub, err := c.sub()
			if err != nil {
				return err
			}
			if tag == tagEventFrame {
				if err := p.frame(sub); err != nil {
					return err
				}
				continue
			}
			raw := make([]byte, sub.left)
			sub.copyOut(raw)
			p.exit = &shimv1.Exit{}
			if err := proto.Unmarshal(raw, p.exit); err != nil {
				return fmt.Errorf("cwx-frame codec: exit: %w", err)
			}
		default:
			if err := c.skipField(tag); err != nil {
				return err
			}
		}
	}
	return nil
}

// frame reads one Frame's fields, in any order, then copies its data to dest.
func (p *recvPart) frame(c cursor) error {
	var data cursor
	for c.left > 0 {
		tag, err := c.varint()
		if err != nil {
			return err
		}
		var v uint64
		switch tag {
		case tagFrameData:
			data, err = c.sub()
		case tagFrameFirst:
			v, err = c.varint()
			p.first = v != 0
		case tagFrameSize:
			v, err = c.varint()
			p.size = uint32(v)
		default:
			err = c.skipField(tag)
		}
		if err != nil {
			return err
		}
	}
	p.n = data.left
	dst, err := p.dest(p.first, p.size, p.n)
	if err != nil {
		return err
	}
	if len(dst) != p.n {
		return fmt.Errorf("cwx-frame codec: destination of %d bytes for a %d byte part", len(dst), p.n)
	}
	data.copyOut(dst)
	return nil
}

// cursor reads a window of left bytes from a BufferSlice without copying it.
type cursor struct {
	bufs mem.BufferSlice
	i    int    // next buffer to load
	b    []byte // unread rest of the current buffer
	left int    // bytes left in the window
}

func (c *cursor) fill() {
	for len(c.b) == 0 && c.i < len(c.bufs) {
		c.b = c.bufs[c.i].ReadOnlyData()
		c.i++
	}
}

func (c *cursor) byte() (byte, error) {
	if c.left <= 0 {
		return 0, errTruncated
	}
	c.fill()
	x := c.b[0]
	c.b, c.left = c.b[1:], c.left-1
	return x, nil
}

func (c *cursor) varint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := c.byte()
		if err != nil {
			return 0, err
		}
		if shift == 63 && b > 1 {
			break
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("cwx-frame codec: varint overflow")
}

// advance moves past n bytes, copying them to dst when dst is not nil.
func (c *cursor) advance(n int, dst []byte) {
	for n > 0 {
		c.fill()
		k := min(n, len(c.b))
		if dst != nil {
			copy(dst[len(dst)-n:], c.b[:k])
		}
		c.b, c.left, n = c.b[k:], c.left-k, n-k
	}
}

func (c *cursor) copyOut(dst []byte) { c.advance(len(dst), dst) }

// sub reads a length prefix and returns a cursor over that many bytes, moving c past them.
func (c *cursor) sub() (cursor, error) {
	n, err := c.varint()
	if err != nil {
		return cursor{}, err
	}
	if n > uint64(c.left) {
		return cursor{}, errTruncated
	}
	s := *c
	s.left = int(n)
	c.advance(int(n), nil)
	return s, nil
}

func (c *cursor) skipField(tag uint64) error {
	if num := tag >> 3; num == 0 || num > uint64(protowire.MaxValidNumber) {
		return fmt.Errorf("cwx-frame codec: invalid field number %d", num)
	}
	var n uint64
	switch protowire.Type(tag & 7) {
	case protowire.VarintType:
		_, err := c.varint()
		return err
	case protowire.Fixed64Type:
		n = 8
	case protowire.Fixed32Type:
		n = 4
	case protowire.BytesType:
		_, err := c.sub()
		return err
	default:
		return fmt.Errorf("cwx-frame codec: unsupported wire type %d", tag&7)
	}
	if n > uint64(c.left) {
		return errTruncated
	}
	c.advance(int(n), nil)
	return nil
}
