package shared

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/cwx-dev/cwx/shared/proto/shimv1"
)

// split cuts b into buffers at the given offsets, as gRPC hands a message over in pieces.
func split(b []byte, cuts ...int) mem.BufferSlice {
	var s mem.BufferSlice
	prev := 0
	for _, c := range cuts {
		c = min(max(c, prev), len(b))
		s = append(s, mem.SliceBuffer(b[prev:c]))
		prev = c
	}
	return append(s, mem.SliceBuffer(b[prev:]))
}

// decode runs the codec's receive side and returns the part's fields and bytes.
func decode(t testing.TB, event bool, s mem.BufferSlice) (first bool, size uint32, data []byte, exit *shimv1.Exit, err error) {
	p := recvPart{event: event, dest: func(_ bool, _ uint32, n int) ([]byte, error) {
		data = make([]byte, n)
		return data, nil
	}}
	err = frameCodec{}.Unmarshal(s, &p)
	return p.first, p.size, data, p.exit, err
}

// TestCodecSpeaksProtobuf checks that the codec writes what protobuf reads back as the same
// Frame or Event, and reads what protobuf writes, across buffer boundaries.
func TestCodecSpeaksProtobuf(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000)
	cases := []struct {
		name  string
		first bool
		size  uint32
		data  []byte
	}{
		{"first_whole", true, 3, []byte("abc")},
		{"first_of_many", true, uint32(len(big) * 3), big},
		{"later_part", false, 0, []byte("tail")},
		{"empty_payload", true, 0, nil},
		{"large_size_varint", true, 1<<32 - 1, []byte("x")},
	}
	for _, c := range cases {
		for _, event := range []bool{false, true} {
			name := c.name + map[bool]string{false: "/frame", true: "/event"}[event]
			t.Run(name, func(t *testing.T) {
				sp := &sendPart{event: event, first: c.first, size: c.size, data: mem.SliceBuffer(bytes.Clone(c.data))}
				out, err := frameCodec{}.Marshal(sp)
				if err != nil {
					t.Fatal(err)
				}
				wire := out.Materialize()
				want := &shimv1.Frame{First: c.first, Size: c.size, Data: c.data}
				var got *shimv1.Frame
				if event {
					ev := &shimv1.Event{}
					if err := proto.Unmarshal(wire, ev); err != nil {
						t.Fatal(err)
					}
					got = ev.GetFrame()
				} else {
					got = &shimv1.Frame{}
					if err := proto.Unmarshal(wire, got); err != nil {
						t.Fatal(err)
					}
				}
				if !proto.Equal(got, want) {
					t.Fatalf("protobuf read %v, want %v", got, want)
				}

				var msg proto.Message = want
				if event {
					msg = &shimv1.Event{Kind: &shimv1.Event_Frame{Frame: want}}
				}
				pw, err := proto.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				for _, cuts := range [][]int{nil, {1}, {2, 3, 7}, {len(pw) / 2}, {len(pw) - 1}} {
					first, size, data, exit, err := decode(t, event, split(pw, cuts...))
					if err != nil || exit != nil || first != c.first || size != c.size || !bytes.Equal(data, c.data) {
						t.Fatalf("cuts %v: decoded (%v, %d, %d bytes, %v, %v), want (%v, %d, %d bytes)",
							cuts, first, size, len(data), exit, err, c.first, c.size, len(c.data))
					}
				}
			})
		}
	}
}

// TestCodecExitAndProtoFallback checks the Exit event (protobuf on both ends) and the
// codec's protobuf fallback for other messages.
func TestCodecExitAndProtoFallback(t *testing.T) {
	x := &shimv1.Exit{Code: -1, Signal: 9, Reason: "framing violation: bad magic", StderrTail: []byte("tail")}
	out, err := frameCodec{}.Marshal(&shimv1.Event{Kind: &shimv1.Event_Exit{Exit: x}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, exit, err := decode(t, true, split(out.Materialize(), 3))
	if err != nil || !proto.Equal(exit, x) {
		t.Fatalf("exit %v, %v; want %v", exit, err, x)
	}
	var back shimv1.Exit
	if err := (frameCodec{}).Unmarshal(split(out.Materialize()[2:]), &back); err != nil || !proto.Equal(&back, x) {
		t.Fatalf("fallback unmarshal %v, %v", &back, err)
	}
	if _, err := (frameCodec{}).Marshal(42); err == nil {
		t.Error("marshalling an int succeeded")
	}
}

// TestCodecRefusesBrokenInput checks truncated and malformed messages and a destination
// refusal.
func TestCodecRefusesBrokenInput(t *testing.T) {
	cases := []struct {
		name string
		wire []byte
		msg  string
	}{
		{"truncated_data", []byte{0x0a, 0x05, 'a', 'b'}, "truncated"},
		{"truncated_varint", []byte{0x18, 0x80}, "truncated"},
		{"varint_overflow", append([]byte{0x18}, bytes.Repeat([]byte{0xff}, 11)...), "overflow"},
		{"group_wire_type", []byte{0x23}, "unsupported wire type"},
		{"refused_destination", []byte{0x10, 0x01, 0x0a, 0x01, 'x'}, "refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := recvPart{dest: func(bool, uint32, int) ([]byte, error) { return nil, errRefused }}
			err := frameCodec{}.Unmarshal(split(c.wire, 1), &p)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want one containing %q", err, c.msg)
			}
		})
	}
}

var errRefused = &refusedError{}

type refusedError struct{}

func (*refusedError) Error() string { return "refused" }

// FuzzCodecFrame checks that whatever the codec accepts as a Frame, protobuf reads the same.
func FuzzCodecFrame(f *testing.F) {
	for _, fr := range []*shimv1.Frame{{First: true, Size: 3, Data: []byte("abc")}, {Data: []byte("x")}, {}} {
		b, _ := proto.Marshal(fr)
		f.Add(b, 1)
	}
	f.Add([]byte{0x0a, 0x05, 'a'}, 2)
	f.Fuzz(func(t *testing.T, wire []byte, cut int) {
		first, size, data, _, err := decode(t, false, split(wire, cut))
		var pf shimv1.Frame
		perr := proto.Unmarshal(wire, &pf)
		if err != nil {
			return
		}
		if perr != nil {
			t.Fatalf("codec accepted what protobuf refused (%v)", perr)
		}
		if first != pf.First || size != pf.Size || !bytes.Equal(data, pf.Data) {
			t.Fatalf("codec read (%v, %d, %q), protobuf (%v, %d, %q)", first, size, data, pf.First, pf.Size, pf.Data)
		}
		_, _, _, _, _ = decode(t, true, split(wire, cut)) // must not panic as an Event either
	})
}
