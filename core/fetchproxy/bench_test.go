package fetchproxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// BenchmarkFetch1MiB is one 1 MiB exchange through Serve (no host, no frames), asked as the
// host asks (the first bytes with the head, then net/read until eof): what the proxy itself
// adds to cwx bench's fetch_1mib_ms.
func BenchmarkFetch1MiB(b *testing.B) {
	body := bytes.Repeat([]byte("f"), 1<<20)
	s := server(&testing.T{}, func(w http.ResponseWriter, _ *http.Request) { w.Write(body) })
	defer s.Close()
	r := newRig(&testing.T{}, grant(s.URL), Options{Rate: 1e9, Burst: 1 << 30})
	defer r.p.Close()
	reads := 0
	for b.Loop() {
		id := r.id()
		res, err := r.p.Serve(context.Background(), r.c, &protocol.Message{Method: protocol.MethodNetFetch,
			Value: &protocol.NetFetchParams{Owner: r.c.Owner, RequestID: id, Method: "GET", URL: s.URL, MaxBytes: protocol.NetMaxChunk}})
		if err != nil {
			b.Fatal(err)
		}
		if wa, ok := res.(protocol.WithAttachment); ok && wa.Result.(protocol.NetResponseHead).EOF {
			continue
		}
		for {
			res, err := r.p.Serve(context.Background(), r.c, &protocol.Message{Method: protocol.MethodNetRead, Value: &protocol.NetReadParams{Owner: r.c.Owner, RequestID: id}})
			if err != nil {
				b.Fatal(err)
			}
			reads++
			if res.(protocol.WithAttachment).Result.(protocol.NetChunk).EOF {
				break
			}
		}
	}
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
}

// BenchmarkDirect1MiB is the same server read by a plain net/http client, for scale.
func BenchmarkDirect1MiB(b *testing.B) {
	body := bytes.Repeat([]byte("f"), 1<<20)
	s := server(&testing.T{}, func(w http.ResponseWriter, _ *http.Request) { w.Write(body) })
	defer s.Close()
	for b.Loop() {
		resp, err := http.Get(s.URL)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}
