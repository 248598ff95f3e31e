package frame

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	// Magic opens every frame.
	Magic = "CWX1"
	// HeaderSize is the size of the magic plus the length field.
	HeaderSize = 8
	// MaxPayload is the largest payload either side may send: 32 MiB.
	MaxPayload = 32 << 20
)

// Typed framing errors. Every error returned by this package wraps one of them.
var (
	// ErrBadMagic means the stream does not start a frame with "CWX1".
	ErrBadMagic = errors.New("bad magic")
	// ErrTooLarge means a payload (sent or announced) exceeds MaxPayload.
	ErrTooLarge = errors.New("frame too large")
	// ErrTruncated means the stream ended inside a header or a payload.
	ErrTruncated = errors.New("truncated frame")
)

// SizeError reports a payload over the limit. It matches ErrTooLarge with errors.Is.
type SizeError struct {
	Size  uint64 // the payload size sent or announced
	Limit uint64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("frame too large: payload of %d bytes exceeds the %d byte limit", e.Size, e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *SizeError) Is(target error) bool { return target == ErrTooLarge }

// MagicError reports the four bytes found where "CWX1" was expected.
type MagicError struct{ Got [4]byte }

func (e *MagicError) Error() string { return fmt.Sprintf("bad magic %q, want %q", e.Got[:], Magic) }

// Is makes errors.Is(err, ErrBadMagic) true.
func (e *MagicError) Is(target error) bool { return target == ErrBadMagic }

// AppendHeader appends the header for a payload of n bytes to dst.
func AppendHeader(dst []byte, n int) ([]byte, error) {
	if n < 0 || uint64(n) > MaxPayload {
		return dst, &SizeError{Size: uint64(max(n, 0)), Limit: MaxPayload}
	}
	dst = append(dst, Magic...)
	return binary.LittleEndian.AppendUint32(dst, uint32(n)), nil
}

// Writer writes frames to an underlying writer. It is not safe for concurrent use.
type Writer struct {
	w   io.Writer
	hdr [HeaderSize]byte
}

// NewWriter returns a Writer that frames payloads onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteFrame writes one frame. The header and payload are written with two calls to the
// underlying writer so a large payload is never copied.
func (fw *Writer) WriteFrame(payload []byte) error {
	if uint64(len(payload)) > MaxPayload {
		return &SizeError{Size: uint64(len(payload)), Limit: MaxPayload}
	}
	copy(fw.hdr[:4], Magic)
	binary.LittleEndian.PutUint32(fw.hdr[4:], uint32(len(payload)))
	if _, err := fw.w.Write(fw.hdr[:]); err != nil {
		return fmt.Errorf("write frame header: %w", err)
	}
	if _, err := fw.w.Write(payload); err != nil {
		return fmt.Errorf("write frame payload: %w", err)
	}
	return nil
}

// Reader decodes frames from a stream. It is not safe for concurrent use.
type Reader struct {
	r     *bufio.Reader
	limit uint64
	hdr   [HeaderSize]byte
}

// NewReader returns a Reader with the MaxPayload limit.
func NewReader(r io.Reader) *Reader { return NewReaderLimit(r, MaxPayload) }

// NewReaderLimit returns a Reader that refuses payloads above limit (at most MaxPayload).
func NewReaderLimit(r io.Reader, limit uint64) *Reader {
	if limit > MaxPayload {
		limit = MaxPayload
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &Reader{r: br, limit: limit}
}

// ReadHeader reads and checks one header and returns the announced payload length. It
// returns io.EOF when the stream ends exactly before the header.
func (fr *Reader) ReadHeader() (int, error) {
	n, err := io.ReadFull(fr.r, fr.hdr[:])
	switch {
	case err == io.EOF:
		return 0, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return 0, fmt.Errorf("%w: stream ended after %d of %d header bytes", ErrTruncated, n, HeaderSize)
	case err != nil:
		return 0, fmt.Errorf("read frame header: %w", err)
	}
	if string(fr.hdr[:4]) != Magic {
		me := &MagicError{}
		copy(me.Got[:], fr.hdr[:4])
		return 0, me
	}
	size := uint64(binary.LittleEndian.Uint32(fr.hdr[4:]))
	if size > fr.limit {
		return 0, &SizeError{Size: size, Limit: fr.limit}
	}
	return int(size), nil
}

// ReadFrame reads one whole frame and returns its payload in a new slice sized exactly to
// the announced length (allocated only after the length passed the limit check).
func (fr *Reader) ReadFrame() ([]byte, error) {
	size, err := fr.ReadHeader()
	if err != nil {
		return nil, err
	}
	payload := make([]byte, size)
	if err := fr.ReadPayload(payload); err != nil {
		return nil, err
	}
	return payload, nil
}

// ReadPayload fills p (sized by a prior ReadHeader) with the payload bytes.
func (fr *Reader) ReadPayload(p []byte) error {
	n, err := io.ReadFull(fr.r, p)
	if err == nil {
		return nil
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return fmt.Errorf("%w: stream ended after %d of %d payload bytes", ErrTruncated, n, len(p))
	}
	return fmt.Errorf("read frame payload: %w", err)
}
