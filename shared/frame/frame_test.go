package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

func header(magic string, n uint32) []byte {
	b := append([]byte(magic), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], n)
	return b
}

func TestRoundTrip(t *testing.T) {
	payloads := [][]byte{{}, []byte(`{}`), []byte(`{"jsonrpc":"2.0","method":"host/ready","params":{}}`), bytes.Repeat([]byte("x"), 100_000)}
	var stream bytes.Buffer
	w := NewWriter(&stream)
	for _, p := range payloads {
		if err := w.WriteFrame(p); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := Encode(payloads[1])
	if err != nil || !bytes.Equal(enc, append(header(Magic, 2), '{', '}')) {
		t.Fatalf("Encode = %q, %v", enc, err)
	}
	r := NewReader(&stream)
	for i, want := range payloads {
		got, err := r.ReadFrame()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("frame %d: got %d bytes, want %d", i, len(got), len(want))
		}
	}
	if _, err := r.ReadFrame(); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF exactly", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		stream []byte
		want   error
		text   string
	}{
		{"empty stream is a clean end", nil, io.EOF, "EOF"},
		{"truncated header", []byte("CWX"), ErrTruncated, "3 of 8 header bytes"},
		{"header without length", []byte("CWX1\x01\x00"), ErrTruncated, "6 of 8 header bytes"},
		{"truncated payload", append(header(Magic, 10), "12345"...), ErrTruncated, "5 of 10 payload bytes"},
		{"payload missing entirely", header(Magic, 1), ErrTruncated, "0 of 1 payload bytes"},
		{"bad magic", append(header("CWX2", 2), "{}"...), ErrBadMagic, `bad magic "CWX2"`},
		{"json instead of a frame", []byte(`{"jsonrpc":"2.0"}`), ErrBadMagic, "bad magic"},
		{"over the limit", header(Magic, MaxPayload+1), ErrTooLarge, "33554433 bytes exceeds the 33554432 byte limit"},
		{"4 GiB announced", header(Magic, 0xFFFFFFFF), ErrTooLarge, "4294967295"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(tt.stream)).ReadFrame()
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %q, want it to mention %q", err, tt.text)
			}
		})
	}
}

func TestTypedErrors(t *testing.T) {
	_, err := NewReader(bytes.NewReader(header("NOPE", 0))).ReadFrame()
	var me *MagicError
	if !errors.As(err, &me) || string(me.Got[:]) != "NOPE" {
		t.Fatalf("err = %#v, want *MagicError{NOPE}", err)
	}
	_, err = NewReader(bytes.NewReader(header(Magic, MaxPayload+1))).ReadFrame()
	var se *SizeError
	if !errors.As(err, &se) || se.Size != MaxPayload+1 || se.Limit != MaxPayload {
		t.Fatalf("err = %#v, want *SizeError", err)
	}
}

func TestReaderLimit(t *testing.T) {
	stream := append(header(Magic, 5), "hello"...)
	if _, err := NewReaderLimit(bytes.NewReader(stream), 4).ReadFrame(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if p, err := NewReaderLimit(bytes.NewReader(stream), 5).ReadFrame(); err != nil || string(p) != "hello" {
		t.Fatalf("ReadFrame = %q, %v", p, err)
	}
	if r := NewReaderLimit(bytes.NewReader(nil), MaxPayload*2); r.limit != MaxPayload {
		t.Fatalf("limit %d not capped at MaxPayload", r.limit)
	}
}

func TestHeaderThenPayload(t *testing.T) {
	r := NewReader(bytes.NewReader(append(header(Magic, 3), "abc"...)))
	n, err := r.ReadHeader()
	if err != nil || n != 3 {
		t.Fatalf("ReadHeader = %d, %v", n, err)
	}
	p := make([]byte, n)
	if err := r.ReadPayload(p); err != nil || string(p) != "abc" {
		t.Fatalf("ReadPayload = %q, %v", p, err)
	}
}

func TestEncodeRefusesOversizedPayload(t *testing.T) {
	big := make([]byte, MaxPayload+1)
	if _, err := Encode(big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Encode(32 MiB + 1) = %v, want ErrTooLarge", err)
	}
	var sink bytes.Buffer
	if err := NewWriter(&sink).WriteFrame(big); !errors.Is(err, ErrTooLarge) || sink.Len() != 0 {
		t.Fatalf("WriteFrame(32 MiB + 1) = %v with %d bytes written, want ErrTooLarge and nothing", err, sink.Len())
	}
	if _, err := AppendHeader(nil, -1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("AppendHeader(-1) = %v", err)
	}
	out, err := Encode(big[:MaxPayload])
	if err != nil || len(out) != HeaderSize+MaxPayload {
		t.Fatalf("Encode(32 MiB) = %d bytes, %v", len(out), err)
	}
}

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after == 0 {
		return 0, errors.New("pipe closed")
	}
	f.after--
	return len(p), nil
}

func TestWriterErrors(t *testing.T) {
	if err := NewWriter(&failWriter{0}).WriteFrame([]byte("{}")); err == nil || !strings.Contains(err.Error(), "header: pipe closed") {
		t.Fatalf("header write error = %v", err)
	}
	if err := NewWriter(&failWriter{1}).WriteFrame([]byte("{}")); err == nil || !strings.Contains(err.Error(), "payload: pipe closed") {
		t.Fatalf("payload write error = %v", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestReadErrorsWrapped(t *testing.T) {
	boom := errors.New("boom")
	if _, err := NewReader(errReader{boom}).ReadFrame(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap the reader's error", err)
	}
	r := NewReader(io.MultiReader(bytes.NewReader(header(Magic, 4)), errReader{boom}))
	if _, err := r.ReadFrame(); !errors.Is(err, boom) || errors.Is(err, ErrTruncated) {
		t.Fatalf("payload err = %v, want the reader's error", err)
	}
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestHugeHeaderAllocatesNothing(t *testing.T) {
	stream := header(Magic, 0xFFFFFFFF) // announces 4 GiB
	var err error
	n := allocated(func() {
		_, err = NewReader(bytes.NewReader(stream)).ReadFrame()
	})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if n >= 1<<20 {
		t.Fatalf("a 4 GiB header allocated %d bytes, want < 1 MiB", n)
	}
	t.Logf("a 4 GiB header allocated %d bytes", n)
}

// chunkReader hands out at most chunk bytes per Read and counts the calls.
type chunkReader struct {
	data  []byte
	chunk int
	calls int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	c.calls++
	n := copy(p[:min(len(p), c.chunk)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// TestLargeFrameLinear reads a 16 MiB frame delivered 4 KiB at a time: the payload is
// allocated once, at its announced size, and every byte is copied a bounded number of
// times (no re-buffering that grows with the frame).
func TestLargeFrameLinear(t *testing.T) {
	const size = 16 << 20
	payload := bytes.Repeat([]byte("a"), size)
	enc, err := Encode(payload)
	if err != nil {
		t.Fatal(err)
	}
	src := &chunkReader{data: enc, chunk: 4 << 10}
	var got []byte
	n := allocated(func() {
		got, err = NewReader(src).ReadFrame()
	})
	if err != nil || len(got) != size {
		t.Fatalf("ReadFrame: %d bytes, %v", len(got), err)
	}
	if n > size+(1<<20) {
		t.Fatalf("reading a %d byte frame allocated %d bytes, want about one payload", size, n)
	}
	if want := len(enc)/(4<<10) + 2; src.calls > want {
		t.Fatalf("%d reads for %d bytes in 4 KiB chunks, want <= %d", src.calls, len(enc), want)
	}
}

// Encode returns payload framed as one CWX1 frame in a new slice.
func Encode(payload []byte) ([]byte, error) {
	out := make([]byte, 0, HeaderSize+len(payload))
	out, err := AppendHeader(out, len(payload))
	if err != nil {
		return nil, err
	}
	return append(out, payload...), nil
}
