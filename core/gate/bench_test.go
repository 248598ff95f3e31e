package gate

import (
	"context"
	"strconv"
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

func BenchmarkCanonicalize(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`{"q":"x","items":[`)
	for i := 0; doc.Len() < 1<<20; i++ {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.WriteString(`{"name":"item ` + strconv.Itoa(i) + `","id":` + strconv.Itoa(i) + `,"ratio":0.25,"ok":true,"tags":["a","b\n"]}`)
	}
	doc.WriteString(`]}`)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"small", []byte(`{"path":"src/main.go","limit":20}`)},
		{"string-1MiB", []byte(`{"text":"` + strings.Repeat("x", 1<<20) + `"}`)},
		{"doc-1MiB", []byte(doc.String())},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Canonicalize(tc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckAuto1MiB is the gate's cost for a call with a 1 MiB text argument under
// the auto posture (the input is checked, no key is hashed).
func BenchmarkCheckAuto1MiB(b *testing.B) {
	g := New(Auto, nil)
	r := req(`{"text":"` + strings.Repeat("x", 1<<20) + `"}`)
	b.SetBytes(int64(len(r.Input)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Check(context.Background(), r, nil); err != nil {
			b.Fatal(err)
		}
	}
}
