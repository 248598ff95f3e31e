package core

import (
	"context"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestDSHServiceRefusesByName: a plugin calling `ctx.tools.presentAs`, which cwx does not
// provide, fails its activation with a reason naming the method; `ctx.tools.get` finds a
// tool live in the host and `deferLoading` is accepted.
func TestDSHServiceRefusesByName(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("dsh-present-as", "dsh-tools-get")
		m := e.open(nil)
		reconcile(t, m)
		o, _ := m.Owner("fixture-dsh-present-as")
		if o.State != "failed" || !strings.Contains(o.Reason, "`tools.presentAs` is not provided by cwx") || strings.Contains(o.Reason, "is not a function") {
			t.Fatalf("owner %+v, want failed naming tools.presentAs", o)
		}
		res, err := m.CallTool(context.Background(), "lookup_tool", input(`{"name":"deferred_probe"}`), CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.Structured); !strings.Contains(got, `"name":"deferred_probe"`) || !strings.Contains(got, `"plugin":"fixture-dsh-tools-get"`) || !strings.Contains(got, `"frozen":true`) {
			t.Fatalf("tools.get = %s", got)
		}
	})
}
