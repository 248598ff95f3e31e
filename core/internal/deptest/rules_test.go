package deptest

import (
	"strings"
	"testing"
)

// module is the import path every rule is written against. The bad module under testdata
// carries the same path, so the very same table must catch its violations.
const module = "github.com/cwx-dev/cwx"

func pkg(rel string) string { return module + "/" + rel }

// processCode is what starts, signals or talks to another process, or drives one that
// does: the exec and signal packages, the plugin and gRPC stacks, the supervisor, the
// runtime launcher, the JSON-RPC peer of a live host, the shim and its contract. The
// frame codec under shared and the bundle's data are bytes only and stay allowed.
var processCode = []string{
	"os/exec", "os/signal", "golang.org/x/sys/...",
	"github.com/hashicorp/go-plugin/...", "google.golang.org/grpc/...",
	pkg("core/supervisor/..."), pkg("core/runtime/..."), pkg("core/rpc/..."),
	pkg("nodeshim/..."), pkg("shared/..."),
}

// testSupport are the packages that exist for tests and checks only, and the modules only
// they need.
var testSupport = []string{
	pkg("shared/testenv/..."), pkg("core/internal/deptest/..."), pkg("core/internal/lockcheck/..."),
	pkg("core/plugins/plugintest/..."), pkg("core/internal/mcptest/..."), pkg("core/seccomp/seccomptest/..."), pkg("core/seccomp/internal/abi/..."),
	"go.uber.org/goleak/...", "golang.org/x/tools/...", "gvisor.dev/gvisor/...",
}

// rules are the module's import rules (ARCHITECTURE.md, “Package map”).
var rules = []Rule{
	{
		Name:   "the shim links no core",
		From:   []string{pkg("nodeshim/...")},
		Except: []string{pkg("nodeshim/jshost/...")},
		Deny:   []string{pkg("core/...")},
	},
	{
		Name:  "the core links nothing of the shim but the host bundle's data",
		From:  []string{pkg("core/...")},
		Deny:  []string{pkg("nodeshim/...")},
		Allow: []string{pkg("nodeshim/jshost")},
	},
	{
		Name: "shared is the core-shim contract only",
		From: []string{pkg("shared/...")},
		Deny: []string{pkg("core/..."), pkg("nodeshim/...")},
	},
	{
		Name: "the host bundle package is data only",
		From: []string{pkg("nodeshim/jshost/...")},
		Deny: []string{pkg("...")},
	},
	{
		Name:  "protocol, registry and gate run no process",
		From:  []string{pkg("core/protocol/..."), pkg("core/registry/..."), pkg("core/gate/...")},
		Deny:  processCode,
		Allow: []string{pkg("nodeshim/jshost"), pkg("shared/frame")},
	},
	{
		Name: "the owner layer does not link the core's facade",
		From: []string{pkg("core/owners/...")},
		Deny: []string{pkg("core"), pkg("core/cli/..."), pkg("core/mcpserve/...")},
	},
	{
		// they are told what the call path knows (the call, the question) and keep no
		// ticket, owner or host of their own
		Name: "the agent services and the questions know no call path",
		From: []string{pkg("core/services/..."), pkg("core/questions/...")},
		Deny: []string{pkg("core"), pkg("core/owners/..."), pkg("core/tickets/..."), pkg("core/hooks/..."), pkg("core/natives/..."),
			pkg("core/rpc/..."), pkg("core/supervisor/..."), pkg("core/runtime/..."), "os/exec"},
	},
	{
		// the files users have are read and expanded, never run or fetched: which of their
		// servers run is core/mcpclient's decision
		Name: "the MCP file reader runs nothing and reaches no network",
		From: []string{pkg("core/mcpfile/...")},
		Deny: append([]string{"net/http/...", pkg("core/egress/..."), pkg("core/mcpclient/...")}, processCode...),
	},
	{
		Name: "the MCP client links neither the core's facade nor its call path",
		From: []string{pkg("core/mcpclient/...")},
		Deny: []string{pkg("core"), pkg("core/cli/..."), pkg("core/mcpserve/..."), pkg("core/owners/..."), pkg("core/rpc/..."), pkg("core/tickets/..."), pkg("core/supervisor/...")},
	},
	{
		// a bundle is read, composed and installed through the plugin store: nothing of it
		// runs, and it reaches no host, owner or call path
		Name: "the DSH bundle resolver runs nothing and knows no call path",
		From: []string{pkg("core/dshbundle/...")},
		Deny: append([]string{pkg("core"), pkg("core/cli/..."), pkg("core/owners/..."), pkg("core/tickets/..."),
			pkg("core/mcpclient/...")}, processCode...),
		Allow: []string{pkg("nodeshim/jshost"), pkg("shared/frame")},
	},
	{
		// the CLI reaches the owners, their hosts and what the call path keeps only through
		// core's facade (Manager, its result and error types)
		Name:   "the CLI goes through the core's facade",
		From:   []string{pkg("core/cli/...")},
		Deny:   []string{pkg("core/owners/..."), pkg("core/rpc/..."), pkg("core/tickets/..."), pkg("core/catalog/..."), pkg("core/hooks/..."), pkg("core/natives/..."), pkg("core/scripttools/..."), pkg("core/mcpclient/...")},
		Direct: true,
	},
	{
		Name:   "shipped packages link no test support",
		From:   []string{pkg("...")},
		Except: testSupport,
		Deny:   testSupport,
	},
}

// TestModuleImportRules checks the module's own packages against rules.
func TestModuleImportRules(t *testing.T) {
	g, err := Load(".", module+"/...")
	if err != nil {
		t.Fatal(err)
	}
	if names := Unmatched(g, rules); len(names) > 0 {
		t.Errorf("rules that apply to no package: %s", strings.Join(names, "; "))
	}
	for _, v := range Check(g, rules) {
		t.Error(v)
	}
}
