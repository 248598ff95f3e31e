package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestProvidingApprovalFailsWholly: a plugin that registers a tool and then provides the
// core's `approval` service fails activation, and nothing it registered survives: the core
// lists no tool of it, a call of that tool is not available, and the neighbour in the same
// host keeps working.
func TestProvidingApprovalFailsWholly(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("refuses-approval", "tool")
		m := e.open(nil)
		reconcile(t, m)
		o, ok := m.Owner("fixture-refuses-approval")
		if !ok || o.State != "failed" || len(o.Tools) != 0 || !strings.Contains(o.Reason, "approval") {
			t.Fatalf("owner %+v", o)
		}
		if hasTool(m, "approval_probe") {
			t.Fatal("the tool registered before the forbidden provide survived in the core")
		}
		if _, err := m.CallTool(context.Background(), "approval_probe", input(`{}`), CallOptions{}); !errors.Is(err, ErrNotAvailable) {
			t.Fatalf("call of the rolled-back tool: %v", err)
		}
		if _, err := m.CallTool(context.Background(), "echo_text", input(`{"text":"still here"}`), CallOptions{}); err != nil {
			t.Fatalf("neighbour: %v", err)
		}
		if d := strings.Join(diagnostics(t, e, m, "fixture-refuses-approval"), "\n"); !strings.Contains(d, "approval") {
			t.Fatalf("diagnostics do not say why: %s", d)
		}
	})
}
