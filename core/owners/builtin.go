package owners

import (
	"encoding/json"
	"sync"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
)

// BuiltinWork is what one builtin module has to do, computed by the core from config.toml and
// the home at every Reconcile (ARCHITECTURE.md, “Builtin modules”).
type BuiltinWork struct {
	// Needed says the module has work. Only a needed module gets an owner (host:<id>), and
	// the builtin tier starts only when some module is needed.
	Needed bool
	// Config is the JSON the module's apply(ctx, config) receives; nil sends {}. Its digest is
	// the owner's config digest: when it changes, the module, and no other, is activated again.
	Config json.RawMessage
	// Notes are reported once per Manager each (logged and listed by BuiltinModules): what the
	// core refused or ignored while computing the work.
	Notes []string
}

// BuiltinSource computes one module's work. want holds the plugins desired in this Reconcile
// (their claims), so that a module can keep out of their names.
type BuiltinSource func(cfg *config.Config, want map[string]plugins.Desired) (BuiltinWork, error)

// builtinState is the layer's memory of its builtin modules: the last work computed for
// each, and the notes already reported.
type builtinState struct {
	mu    sync.Mutex
	last  map[string]builtinRow // +checklocks:mu
	noted map[string]bool       // +checklocks:mu
}

type builtinRow struct {
	needed bool
	notes  []string
	failed string // why the module has no owner although needed ("" when it has one)
}

// BuiltinModuleInfo describes one pinned builtin module for `cwx host status` and `cwx plugin
// list`.
type BuiltinModuleInfo struct {
	ID     string `json:"id"`
	Owner  string `json:"owner"`  // host:<id>
	SHA256 string `json:"sha256"` // pinned digest
	Needed bool   `json:"needed"` // had work at the last Reconcile of this Manager
	State  string `json:"state"`  // the owner's state, "idle" when it has none
	Tools  int    `json:"tools"`  // live tools it serves
	// Problem says why a needed module has no owner (its file differs from the pin, ...).
	Problem string   `json:"problem,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

const builtinVersionLen = 12

// isBuiltinDesired says d is a builtin module's owner.
func isBuiltinDesired(d plugins.Desired) bool { return TierOf(d.ID) == protocol.TierBuiltin }
