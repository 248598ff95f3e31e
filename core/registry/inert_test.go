package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TestDescriptionsInert: tool and command descriptions (and argument hints) holding a
// character package inert refuses are refused at admission; a joiner is admitted.
func TestDescriptionsInert(t *testing.T) {
	hint := func(s string) *string { return &s }
	toolSpec := func(desc string) protocol.RegisterSpec {
		return protocol.RegisterSpec{Name: "probe", Description: desc, InputSchema: []byte(objSchema)}
	}
	cases := []struct {
		name   string
		kind   protocol.RegisterKind
		spec   protocol.RegisterSpec
		reason string // "" when admitted
	}{
		{"tool bidi override", protocol.KindTool, toolSpec("Reads \u202eelif\u202c"), "holds U+202E"},
		{"tool isolate", protocol.KindTool, toolSpec("a\u2067b"), "holds U+2067"},
		{"tool C1 CSI", protocol.KindTool, toolSpec("\u009b2J"), "holds U+009B"},
		{"tool escape", protocol.KindTool, toolSpec("red \x1b[31m"), "holds U+001B"},
		{"tool carriage return", protocol.KindTool, toolSpec("ok\roverwritten"), "holds U+000D"},
		{"tool DEL", protocol.KindTool, toolSpec("a\x7f"), "holds U+007F"},
		{"tool line separator", protocol.KindTool, toolSpec("a\u2028b"), "holds U+2028"},
		{"tool mark", protocol.KindTool, toolSpec("a\u200fb"), "holds U+200F"},
		{"tool arabic mark", protocol.KindTool, toolSpec("a\u061cb"), "holds U+061C"},
		{"tool BOM", protocol.KindTool, toolSpec("\ufeffa"), "holds U+FEFF"},
		{"tool newline, tab and joiner", protocol.KindTool, toolSpec("Pairs 👩\u200d💻\n\tindented"), ""},
		{"command bidi", protocol.KindCommand, protocol.RegisterSpec{Name: "export", Description: "Export \u202elog"}, "bidi controls"},
		{"command mark", protocol.KindCommand, protocol.RegisterSpec{Name: "export", Description: "Export\u200elog"}, "bidi controls"},
		{"hint isolate", protocol.KindCommand, protocol.RegisterSpec{Name: "export", Description: "d", ArgumentHint: hint("[\u2066x]")}, "bidi controls"},
		{"command joiner", protocol.KindCommand, protocol.RegisterSpec{Name: "export", Description: "Export 👩\u200d💻"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Options{})
			ref := active(t, r, "alpha")
			_, err := r.Register(pluginHost, &protocol.RegisterParams{Owner: ref, Kind: tc.kind, Spec: tc.spec})
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err = %v, want an invalid-spec refusal containing %q", err, tc.reason)
			}
			if len(r.Tools())+len(r.Commands()) != 0 {
				t.Fatal("a refused registration is live")
			}
		})
	}
}
