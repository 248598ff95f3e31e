package core

import (
	"context"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
)

// TestRequestsNameTheirOrigin: the gate requests the core builds for each origin carry it, so
// a card and a refusal name the native shell as native (also when a plugin's core/call asks
// for it), and a builtin module's tool as the module's, never as "extension tool … from
// plugin …".
func TestRequestsNameTheirOrigin(t *testing.T) {
	shell := natives.Spec{Name: "shell", Forced: true}
	inv := &invocation{caller: gate.Caller{PluginID: "hello", ClosureSHA256: "c1", Tool: "greet"}}
	cases := []struct {
		name    string
		req     gate.Request
		origin  gate.Origin
		subject string
	}{
		{"native", gate.Request{Tool: "shell", Input: []byte("{}"), Requirement: requirementOf(shell), Native: true}, gate.OriginNative, "native tool `shell`"},
		{"core/call", coreCallRequest(inv, shell, []byte("{}")), gate.OriginCoreCall,
			"native tool `shell` requested by plugin `hello` from its tool `greet` (core/call)"},
		{"extension", toolRequest("hello", "c1", "greet", []byte("{}"), 0), gate.OriginExtension, "extension tool `greet` from plugin `hello`"},
		{"builtin module", toolRequest("host:script-tools", "c2", "word_count", []byte("{}"), 0), gate.OriginBuiltin,
			"tool `word_count` of builtin module `host:script-tools`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			card := gate.NewCard(c.req, "k", []byte("{}"))
			if card.Origin != c.origin || card.Subject != c.subject {
				t.Fatalf("origin %q subject %q, want %q %q", card.Origin, card.Subject, c.origin, c.subject)
			}
			_, err := gate.New(gate.Ask, &gate.TerminalPrompter{}).Check(context.Background(), c.req, nil)
			if err == nil || !strings.Contains(err.Error(), c.subject) || strings.Contains(err.Error(), "plugin ``") {
				t.Fatalf("refusal %v does not name %q", err, c.subject)
			}
			if c.req.Requirement == gate.Forced && strings.Contains(err.Error(), "--approve") {
				t.Fatalf("a forced call is advised a posture that never approves it: %v", err)
			}
		})
	}
}
