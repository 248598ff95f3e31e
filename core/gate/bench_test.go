package gate

import (
	"context"
	"strings"
	"testing"
)

func BenchmarkKey1KiB(b *testing.B) {
	in := []byte(`{"path":"src/main.go","query":"` + strings.Repeat("x", 1000) + `","limit":20,"ratio":0.25}`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Key("hello", closure, "greet", in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckAuto(b *testing.B) {
	g := New(Auto, nil)
	r := req(`{"path":"src/main.go","limit":20}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Check(context.Background(), r, nil); err != nil {
			b.Fatal(err)
		}
	}
}
