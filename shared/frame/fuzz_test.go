package frame

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// corpusPayloads returns the frames of the protocol corpus as JSON payloads (the corpus
// format is read here with encoding/json; core/protocol owns its meaning).
func corpusPayloads(f *testing.F) [][]byte {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "protocol", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var c struct {
			Frame json.RawMessage `json:"frame"`
		}
		if json.Unmarshal(data, &c) != nil || len(c.Frame) == 0 {
			continue
		}
		var buf bytes.Buffer
		if json.Compact(&buf, c.Frame) == nil {
			out = append(out, buf.Bytes())
		}
	}
	return out
}

func FuzzFrameDecode(f *testing.F) {
	for _, p := range corpusPayloads(f) {
		enc, err := Encode(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
		f.Add(enc[:len(enc)/2])                         // truncated
		f.Add(append(append([]byte{}, enc...), enc...)) // two frames
	}
	f.Add([]byte{})
	f.Add([]byte("CWX1\xff\xff\xff\xff"))
	f.Add([]byte("CWX2\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := NewReaderLimit(bytes.NewReader(stream), 1<<16)
		var reencoded []byte
		for {
			p, err := r.ReadFrame()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrBadMagic) && !errors.Is(err, ErrTooLarge) {
					t.Fatalf("untyped error %v", err)
				}
				if err == io.EOF && !bytes.Equal(reencoded, stream) {
					t.Fatalf("clean EOF but the frames read do not re-encode to the stream")
				}
				return
			}
			if len(p) > 1<<16 {
				t.Fatalf("payload of %d bytes over the limit", len(p))
			}
			enc, err := Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			reencoded = append(reencoded, enc...)
			if !bytes.HasPrefix(stream, reencoded) {
				t.Fatalf("re-encoded frames are not a prefix of the stream")
			}
		}
	})
}
