package registry

import (
	"strconv"
	"strings"
	"testing"
)

// benchInputs are inputs of the shapes a tool call carries: a small object, one large
// string (an echo of 1 MiB) and a large document of many small members and numbers.
func benchInputs() []struct {
	name string
	in   []byte
} {
	var doc strings.Builder
	doc.WriteString(`{"q":"x","items":[`)
	for i := 0; doc.Len() < 1<<20; i++ {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"item ` + strconv.Itoa(i) + `","ratio":0.25,"ok":true,"tags":["a","b\n"]}`)
	}
	doc.WriteString(`]}`)
	return []struct {
		name string
		in   []byte
	}{
		{"small", []byte(`{"q":"hello world"}`)},
		{"string-1MiB", []byte(`{"q":"` + strings.Repeat("x", 1<<20) + `"}`)},
		{"doc-1MiB", []byte(doc.String())},
	}
}

func BenchmarkValidateInput(b *testing.B) {
	r := New(Options{})
	ref, _ := r.BeginOwner("alpha", pluginHost)
	p := tool(ref, "probe")
	p.Spec.InputSchema = []byte(`{"type":"object","properties":{"q":{"type":"string"},"items":{"type":"array","items":{"type":"object",` +
		`"properties":{"id":{"type":"integer","minimum":0},"name":{"type":"string"},"ratio":{"type":"number"},"ok":{"type":"boolean"},` +
		`"tags":{"type":"array","items":{"type":"string"}}}}}},"required":["q"]}`)
	h, err := r.Register(pluginHost, p)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range benchInputs() {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := r.ValidateInput(h, tc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
