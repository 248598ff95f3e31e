package supervisor

import (
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/runtime"
)

// TestHelloModulesAgainstThePinnedTable: the core refuses a hello whose builtin_modules
// differ from the table in any way, and names each difference.
func TestHelloModulesAgainstThePinnedTable(t *testing.T) {
	pinned := bundle.BuiltinModules()
	if len(pinned) == 0 {
		t.Fatal("the pinned table is empty; this test needs a module")
	}
	first := pinned[0]
	changed := protocol.ModuleDigest{ID: first.ID, SHA256: strings.Repeat("0", 64)}
	wire := func(ms []bundle.ModuleDigest) []protocol.ModuleDigest {
		out := make([]protocol.ModuleDigest, len(ms))
		for i, m := range ms {
			out[i] = protocol.ModuleDigest{ID: m.ID, SHA256: m.SHA256}
		}
		return out
	}
	same := wire(pinned)
	tests := []struct {
		name string
		got  []protocol.ModuleDigest
		want string // "" accepts
	}{
		{"same", same, ""},
		{"missing", same[1:], "missing " + first.ID + " (" + first.SHA256 + ")"},
		{"extra", append(wire(pinned), protocol.ModuleDigest{ID: "extra", SHA256: "ab"}), "unexpected extra (ab)"},
		{"changed", append(wire(pinned[1:]), changed), "changed " + first.ID + " (" + changed.SHA256 + ")"},
		{"duplicated", append(wire(pinned), same[0]), "duplicated " + first.ID},
		{"empty", []protocol.ModuleDigest{}, "missing " + first.ID},
	}
	rt := runtime.Runtime{Kind: runtime.KindNode, Version: "v22.20.0"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &TierRuntime{o: Options{Tier: protocol.TierBuiltin, Runtime: rt, BundleSHA256: "b", BuiltinModules: pinned}}
			err := tr.checkHello(&protocol.HelloParams{
				Protocol: protocol.ProtocolRange{Min: protocol.Version, Max: protocol.Version},
				Runtime:  protocol.RuntimeInfo{Name: protocol.RuntimeNode, Version: "22.20.0"},
				Tier:     protocol.TierBuiltin, BundleSHA256: "b", BuiltinModules: tc.got,
			}, "b")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("accepted %v", tc.got)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}
