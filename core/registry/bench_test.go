package registry

import (
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

func BenchmarkValidateInput(b *testing.B) {
	r := New(Options{})
	ref, _ := r.BeginOwner("alpha", protocol.TierPlugin)
	h, err := r.Register(protocol.TierPlugin, tool(ref, "probe"))
	if err != nil {
		b.Fatal(err)
	}
	in := []byte(`{"q":"hello world"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := r.ValidateInput(h, in); err != nil {
			b.Fatal(err)
		}
	}
}
