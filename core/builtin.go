package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
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

// builtinSource computes one module's work. want holds the plugins desired in this Reconcile
// (their claims), so that a module can keep out of their names.
type builtinSource func(m *Manager, cfg *config.Config, want map[string]plugins.Desired) (BuiltinWork, error)

// builtinSources maps a module id to its source; registerBuiltin fills it from init functions,
// one per module file (builtin_scripts.go, and the hooks module's own file).
var builtinSources = map[string]builtinSource{}

// registerBuiltin adds module id's source. It panics on a second source for one id: the
// table is fixed at build time.
func registerBuiltin(id string, src builtinSource) {
	if _, dup := builtinSources[id]; dup {
		panic("core: builtin module " + id + " registered twice")
	}
	builtinSources[id] = src
}

// builtinState is the Manager's memory of its builtin modules: the last work computed for
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

// builtinDesired returns a Desired for every builtin module with work. A module whose file in
// the bundle does not hash to its pinned digest, or that is not pinned at all, gets no owner:
// its reason is recorded (BuiltinModules, the log) and no host starts for it.
func (m *Manager) builtinDesired(cfg *config.Config, want map[string]plugins.Desired) []plugins.Desired {
	var out []plugins.Desired
	rows := map[string]builtinRow{}
	for _, id := range slices.Sorted(maps.Keys(builtinSources)) {
		owner := registry.HostIDPrefix + id
		work, err := builtinSources[id](m, cfg, want)
		row := builtinRow{needed: work.Needed, notes: work.Notes}
		for _, n := range work.Notes {
			m.noteBuiltin(owner, n)
		}
		switch {
		case err != nil:
			row.failed = err.Error()
			m.noteBuiltin(owner, "not started: "+err.Error())
		case work.Needed:
			if d, err := m.builtinOwner(id, work); err != nil {
				row.failed = err.Error()
				m.noteBuiltin(owner, err.Error())
			} else {
				out = append(out, d)
			}
		}
		rows[id] = row
	}
	m.builtin.mu.Lock()
	m.builtin.last = rows
	m.builtin.mu.Unlock()
	return out
}

// builtinOwner is module id's Desired: its entry is the module file materialized beside the
// bundle, pinned by the Go table; its data directory is data-builtin/modules/<id>.
func (m *Manager) builtinOwner(id string, work BuiltinWork) (plugins.Desired, error) {
	owner := registry.HostIDPrefix + id
	pin, ok := bundle.PinnedModule(id)
	if !ok {
		return plugins.Desired{}, fmt.Errorf("builtin module %s is not in the pinned table; no host started for it", id)
	}
	i := slices.IndexFunc(m.o.Bundle.Modules, func(mod bundle.Module) bool { return mod.ID == id })
	if i < 0 {
		return plugins.Desired{}, fmt.Errorf("builtin module %s is not in the extension host bundle; no host started for it", id)
	}
	if got := m.o.Bundle.Modules[i].SHA256(); got != pin.SHA256 {
		return plugins.Desired{}, fmt.Errorf("builtin module %s hashes to %s, pinned %s; no host started for it: %w", id, got, pin.SHA256, bundle.ErrModuleDigest)
	}
	cfgJSON := work.Config
	if cfgJSON == nil {
		cfgJSON = json.RawMessage("{}")
	}
	sum := sha256.Sum256(cfgJSON)
	digest := hex.EncodeToString(sum[:])
	// the approval key's closure: the module's bytes and the work it was given (a changed
	// script is another closure, so a session grant does not carry over to it)
	closure := sha256.Sum256([]byte(pin.SHA256 + "\x00" + digest))
	dir := filepath.Join(m.home, "extension-host", m.lazy.bundle()) // the bundle digest, computed once (lazy.go)
	path := bundle.ModulePath(dir, id)
	return plugins.Desired{
		ID: owner, Version: pin.SHA256[:builtinVersionLen], Closure: hex.EncodeToString(closure[:]),
		StageDir: filepath.Dir(path),
		Entries:  []plugins.DesiredEntry{{Path: path, Rel: bundle.ModulesDir + "/" + id + ".mjs", SHA256: pin.SHA256}},
		DataDir:  filepath.Join(m.home, "extension-host", "data-builtin", "modules", id),
		Config:   config.Plugin{ID: owner, Config: map[string]any{}, JSON: cfgJSON, Digest: digest},
		Record:   &plugins.Record{ID: owner, Version: pin.SHA256[:builtinVersionLen], Enabled: true},
	}, nil
}

// isBuiltinDesired says d is a builtin module's owner.
func isBuiltinDesired(d plugins.Desired) bool { return tierOf(d.ID) == protocol.TierBuiltin }

// verifyDesired checks d's bytes before an activation: a plugin's whole staged closure
// (plugins.Store.VerifyClosure), a builtin module's file against its pinned digest,
// materializing the bundle first when it is not yet on disk.
func (m *Manager) verifyDesired(d plugins.Desired) error {
	if !isBuiltinDesired(d) {
		return m.store.VerifyClosure(d.Record)
	}
	for _, e := range d.Entries {
		if err := bundle.VerifyModule(e.Path, e.SHA256); err == nil {
			continue
		}
		if _, err := bundle.Materialize(m.home, m.o.Bundle); err != nil {
			return fmt.Errorf("materialize the extension host bundle: %w", err)
		}
		if err := bundle.VerifyModule(e.Path, e.SHA256); err != nil {
			return fmt.Errorf("builtin module %s: %w", d.ID, err)
		}
	}
	return nil
}

// ensureDataDir creates d's data directory: a plugin's under data/plugins, a builtin module's
// under data-builtin/modules, never inside the plugin tier's. Neither follows a symlink below
// its tier's data folder (plugins.OpenDirNoFollow).
func (m *Manager) ensureDataDir(d plugins.Desired) (string, error) {
	if !isBuiltinDesired(d) {
		l := m.store.Layout()
		dir, err := l.EnsureDataDir(d.ID)
		if err != nil {
			return "", err
		}
		return dir, m.pluginAccess(dir, l.PluginDir(d.ID))
	}
	base, rel := m.dataPlace(d)
	r, err := plugins.OpenDirNoFollow(base, rel, true, 0o700)
	if err != nil {
		return "", err
	}
	r.Close()
	return d.DataDir, nil
}

// dataPlace splits d's data directory into its tier's data folder and the path below it.
func (m *Manager) dataPlace(d plugins.Desired) (base, rel string) {
	base = m.store.Layout().DataRoot()
	if isBuiltinDesired(d) {
		base = filepath.Join(m.home, "extension-host", "data-builtin")
	}
	rel, err := filepath.Rel(base, d.DataDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Dir(d.DataDir), filepath.Base(d.DataDir)
	}
	return base, rel
}

// checkReceipt is a call's receipt check: a plugin's receipt must still hold; a builtin
// module has none (its pin was checked before its activation).
func (m *Manager) checkReceipt(d plugins.Desired) error {
	if isBuiltinDesired(d) {
		return nil
	}
	return m.store.CheckReceipt(d.Record)
}

// builtinRequirement is the approval a tool of pluginID needs: Required for an extension tool,
// and for a builtin module's tool what the pinned table says (bundle.ToolApproval), and only
// that.
func builtinRequirement(pluginID, tool string) gate.Requirement {
	if tierOf(pluginID) == protocol.TierBuiltin &&
		bundle.ToolApproval(pluginID[len(registry.HostIDPrefix):], tool) == bundle.ApprovalAuto {
		return gate.Eligible
	}
	return gate.Required
}

// noteBuiltin reports text about a builtin owner once per Manager.
func (m *Manager) noteBuiltin(owner, text string) {
	key := owner + "\x00" + text
	m.builtin.mu.Lock()
	if m.builtin.noted == nil {
		m.builtin.noted = map[string]bool{}
	}
	seen := m.builtin.noted[key]
	m.builtin.noted[key] = true
	m.builtin.mu.Unlock()
	if !seen {
		m.log.Warn("builtin module", "owner", owner, "note", text)
	}
}

// BuiltinModules lists every pinned builtin module: its digest, whether it had work at this
// Manager's last Reconcile, its owner's state and live tools, why it has no live owner (its
// file differs from the pin, or the owner's failure, fault or revocation), and what was refused.
func (m *Manager) BuiltinModules() []BuiltinModuleInfo {
	m.builtin.mu.Lock()
	last := m.builtin.last
	m.builtin.mu.Unlock()
	var out []BuiltinModuleInfo
	for _, pin := range bundle.Pinned() {
		owner := registry.HostIDPrefix + pin.ID
		row := last[pin.ID]
		info := BuiltinModuleInfo{ID: pin.ID, Owner: owner, SHA256: pin.SHA256, Needed: row.needed, State: "idle",
			Problem: row.failed, Notes: slices.Clone(row.notes)}
		if o, ok := m.reg.Owner(owner); ok && row.needed {
			info.State, info.Tools = o.State.String(), o.Tools
			if !o.State.Live() && info.Problem == "" {
				info.Problem = o.Reason
			}
		}
		out = append(out, info)
	}
	return out
}

// resettleBuiltin runs after a Reconcile's activations. A plugin activated in it may have
// registered, first, a name a module's work had given the module (a script named like the
// plugin's new tool); that module's owner then failed with the clash. For every builtin owner
// that is not live, the work is computed again, now seeing the plugin's names, and a module
// whose work changed is activated again with it, in the same Reconcile.
func (m *Manager) resettleBuiltin(ctx context.Context, cfg *config.Config) []error {
	if ctx.Err() != nil {
		return nil
	}
	m.mu.Lock()
	want := maps.Clone(m.desired)
	stuck := false
	for id := range want {
		if o := m.owners[id]; tierOf(id) == protocol.TierBuiltin && o != nil && !m.stateOf(o).Live() {
			stuck = true
		}
	}
	m.mu.Unlock()
	if !stuck {
		return nil
	}
	var redo []plugins.Desired
	for _, d := range m.builtinDesired(cfg, want) {
		if old, ok := want[d.ID]; ok && old.Config.Digest == d.Config.Digest {
			continue
		}
		redo = append(redo, d)
	}
	if len(redo) == 0 {
		return nil
	}
	m.mu.Lock()
	for _, d := range redo {
		m.desired[d.ID] = d
	}
	m.mu.Unlock()
	h, err := m.ensureTier(ctx, protocol.TierBuiltin)
	if err != nil {
		return []error{fmt.Errorf("start the builtin tier: %w", err)}
	}
	m.activateMissing(ctx, protocol.TierBuiltin, h)
	return nil
}
