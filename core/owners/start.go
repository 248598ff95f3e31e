package owners

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/grants"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// SandboxStatus decides, once per Manager, whether the plugin tier runs sandboxed: it
// resolves the runtime and bubblewrap and runs the probe (itself once per process).
func (l *Layer) SandboxStatus() SandboxStatus {
	l.sandbox.mu.Lock()
	defer l.sandbox.mu.Unlock()
	if l.sandbox.done {
		return l.sandbox.st
	}
	l.mu.Lock()
	cfg, rt := l.cfg, l.rt
	l.mu.Unlock()
	var st SandboxStatus
	if rt == nil {
		r, err := resolveRuntime(cfg, l.home)
		if err != nil {
			st = SandboxStatus{Mode: cfg.ExtensionHost.Sandbox, Note: runtime.Unsandboxed, Problem: err.Error()}
			return st // not cached: the runtime may appear
		}
		rt = &r
	}
	st = decideSandbox(cfg.ExtensionHost, rt.Path, l.o.ShimPath, probeCache(l.home, l.log))
	l.sandbox.st, l.sandbox.done = st, true
	return st
}

// pluginSandbox is the profile a host of the plugin tier runs in, nil when it runs
// unsandboxed, or the refusal under sandbox = "required". The shared host sees every
// plugin's staged copies and the tier's data folder; a plugin's own host (plugins not "")
// sees only that plugin's folder of staged copies, read-only, and its data folder (dataDir).
func (l *Layer) pluginSandbox(eh config.ExtensionHost, rt runtime.Runtime, mat bundle.Materialized, plugins, dataDir string) (*runtime.Profile, error) {
	st := l.SandboxStatus()
	if !st.Active {
		if eh.Sandbox == config.SandboxRequired {
			return nil, fmt.Errorf("%w: plugin tier requires a verified OS sandbox: %s", ErrNotAvailable, st.Problem)
		}
		if st.Problem != "" {
			l.log.Warn("plugin tier runs unsandboxed", "why", st.Problem)
		}
		return nil, nil
	}
	if plugins == "" {
		plugins = filepath.Join(l.home, "plugins")
	}
	p := &runtime.Profile{
		Bwrap: st.Bwrap, Runtime: rt.Path, Bundle: filepath.Dir(mat.Path),
		Plugins: plugins, Data: dataDir, DenyRead: eh.DenyRead, User: st.User,
	}
	if err := sandboxAccess(p); err != nil {
		return nil, err
	}
	if eh.SandboxWorkspace == config.WorkspaceRead {
		p.Workspace, _ = os.Getwd()
	}
	return p, nil
}

// ensureTier returns the ready incarnation of host k, creating the host on first need
// (resolving the runtime and materializing the bundle then, never before).
func (l *Layer) ensureTier(ctx context.Context, t protocol.HostKey) (Host, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", ErrNotAvailable, errClosed)
	}
	tr := l.peekLocked(t).rt
	l.mu.Unlock()
	if tr == nil {
		created, err := l.newTier(t)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			created.Stop()
			return nil, fmt.Errorf("%w: %w", ErrNotAvailable, errClosed)
		}
		ts := l.tierLocked(t)
		if tr = ts.rt; tr == nil {
			tr, ts.rt = created, created
			if t.Isolated() {
				ts.grants = grantsKey(l.cfg, t.Group)
			}
		}
		l.mu.Unlock()
		if tr != created {
			created.Stop() // another caller created the tier first; this one never started
		}
	}
	h, err := tr.Ensure(ctx)
	if err != nil && t.Tier == protocol.TierPlugin && ctx.Err() == nil {
		l.forgetSandboxSuccess()
	}
	return h, err
}

// forgetSandboxSuccess drops the cached successes of the sandbox probe after the sandboxed
// plugin tier failed to start: bubblewrap may have stopped working for a reason the cache's
// key does not cover (an AppArmor profile, a seccomp filter), so the next process probes
// again and `prefer` can fall back instead of failing on a stale success.
func (l *Layer) forgetSandboxSuccess() {
	if !l.SandboxStatus().Active {
		return
	}
	probeCache(l.home, l.log).Forget(runtime.SandboxProbeKind)
}

func (l *Layer) tier(t protocol.HostKey) Tier {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.peekLocked(t).rt
}

// supervisedTier creates the real host: runtime resolved (and pinned) from config.toml,
// bundle materialized under the home, a supervisor.TierRuntime with the layer as its owner
// layer. A plugin's own host works in the plugin's data folder and is sandboxed to its own
// files (pluginSandbox).
func (l *Layer) supervisedTier(t protocol.HostKey) (Tier, error) {
	l.mu.Lock()
	cfg, rt := l.cfg, l.rt
	l.mu.Unlock()
	if rt == nil {
		r, err := resolveRuntime(cfg, l.home)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.rt == nil {
			l.rt = &r
		}
		rt = l.rt
		l.mu.Unlock()
	}
	mat, err := bundle.Materialize(l.home, l.o.Bundle)
	if err != nil {
		return nil, fmt.Errorf("materialize the extension host bundle: %w", err)
	}
	dir, own, err := l.hostDirs(t)
	if err != nil {
		return nil, err
	}
	o := supervisor.Options{
		Tier: t.Tier, Group: t.Group, Runtime: *rt, BundlePath: mat.Path, BundleSHA256: mat.SHA256,
		MemoryLimitBytes: cfg.ExtensionHost.MemoryLimitBytes(), Dir: dir,
		Owners: l, ShimPath: l.o.ShimPath, Logger: l.log,
	}
	if t.Tier == protocol.TierPlugin {
		if o.Sandbox, err = l.pluginSandbox(cfg.ExtensionHost, *rt, mat, own, dir); err != nil {
			return nil, err
		}
	}
	if t.Isolated() {
		if err := l.grantHost(&o, cfg, t.Group); err != nil {
			return nil, err
		}
	}
	if l.o.Tier != nil {
		l.o.Tier(&o)
	}
	l.hostSnapshot(cfg.ExtensionHost, &o)
	if o.Sandbox != nil {
		l.mu.Lock()
		l.tierLocked(t).mounts = o.Sandbox.Mounts()
		l.mu.Unlock()
	}
	tr, err := supervisor.NewTier(o)
	if err != nil {
		return nil, err
	}
	return supervised{tr}, nil
}

// grantHost gives plugin id's own host its read grants: resolved now (a refused grant
// fails the host's creation with its reason), bound read-only into its sandbox, and checked
// again before every later start of the host, so that a symlink swapped since is caught.
func (l *Layer) grantHost(o *supervisor.Options, cfg *config.Config, id string) error {
	g := cfg.Plugin(id).Grants
	if len(g.Read) == 0 {
		return nil
	}
	env := grants.EnvFor(l.home, cfg)
	paths, err := grants.Resolve(env, id, g)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotAvailable, err)
	}
	if o.Sandbox != nil {
		o.Sandbox.Grants = paths
	}
	var resolved atomic.Bool // the first start uses the resolution just made
	resolved.Store(true)
	o.BeforeLaunch = func() error {
		if resolved.Swap(false) {
			return nil
		}
		return grants.Check(env, id, g, paths)
	}
	return nil
}

// hostDirs returns host k's working and writable folder (the tier's data folder, or a
// plugin's own data folder for its own host, created) and, for a plugin's own host, the
// plugin's folder of staged copies, the only plugin files it may read.
func (l *Layer) hostDirs(k protocol.HostKey) (dir, own string, err error) {
	switch {
	case k.Tier == protocol.TierBuiltin:
		dir = filepath.Join(l.home, "extension-host", "data-builtin")
	case k.Isolated():
		lay := l.store.Layout()
		if dir, err = lay.EnsureDataDir(k.Group); err != nil {
			return "", "", err
		}
		return dir, lay.PluginDir(k.Group), nil
	default:
		dir = filepath.Join(l.home, "extension-host", "data")
	}
	return dir, "", config.EnsureDir(dir)
}

// shimCheckedTier is the tier factory of a lazy Manager: the shim check Open makes for an
// eager one (embed.go) runs here, before the first tier starts, so that a command the
// catalog answers runs no program at all. The check runs while the tier is prepared (the
// runtime resolved and probed, the bundle materialized, the sandbox decided), and the tier
// is returned, not yet started, only once the check passed.
func (l *Layer) shimCheckedTier(t protocol.HostKey) (Tier, error) {
	checked := make(chan error, 1)
	go func() { checked <- checkShim(l.bg, l.o.ShimPath, probeCache(l.home, l.log)) }()
	tr, err := l.supervisedTier(t)
	if cerr := <-checked; cerr != nil {
		if err == nil {
			tr.Stop()
		}
		return nil, cerr
	}
	return tr, err
}

// builtinDesired returns a Desired for every builtin module with work. A module whose file in
// the bundle does not hash to its pinned digest, or that is not pinned at all, gets no owner:
// its reason is recorded (BuiltinModules, the log) and no host starts for it.
func (l *Layer) builtinDesired(cfg *config.Config, want map[string]plugins.Desired) []plugins.Desired {
	var out []plugins.Desired
	rows := map[string]builtinRow{}
	for _, id := range slices.Sorted(maps.Keys(l.o.Builtin)) {
		owner := registry.HostIDPrefix + id
		work, err := l.o.Builtin[id](cfg, want)
		row := builtinRow{needed: work.Needed, notes: work.Notes}
		for _, n := range work.Notes {
			l.noteBuiltin(owner, n)
		}
		switch {
		case err != nil:
			row.failed = err.Error()
			l.noteBuiltin(owner, "not started: "+err.Error())
		case work.Needed:
			if d, err := l.builtinOwner(id, work); err != nil {
				row.failed = err.Error()
				l.noteBuiltin(owner, err.Error())
			} else {
				out = append(out, d)
			}
		}
		rows[id] = row
	}
	l.builtin.mu.Lock()
	l.builtin.last = rows
	l.builtin.mu.Unlock()
	return out
}

// builtinOwner is module id's Desired: its entry is the module file materialized beside the
// bundle, pinned by the Go table; its data directory is data-builtin/modules/<id>.
func (l *Layer) builtinOwner(id string, work BuiltinWork) (plugins.Desired, error) {
	owner := registry.HostIDPrefix + id
	pin, ok := bundle.PinnedModule(id)
	if !ok {
		return plugins.Desired{}, fmt.Errorf("builtin module %s is not in the pinned table; no host started for it", id)
	}
	i := slices.IndexFunc(l.o.Bundle.Modules, func(mod bundle.Module) bool { return mod.ID == id })
	if i < 0 {
		return plugins.Desired{}, fmt.Errorf("builtin module %s is not in the extension host bundle; no host started for it", id)
	}
	if got := l.o.Bundle.Modules[i].SHA256(); got != pin.SHA256 {
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
	dir := filepath.Join(l.home, "extension-host", l.lazy.bundle()) // the bundle digest, computed once (catalog.go)
	path := bundle.ModulePath(dir, id)
	return plugins.Desired{
		ID: owner, Version: pin.SHA256[:builtinVersionLen], Closure: hex.EncodeToString(closure[:]),
		StageDir: filepath.Dir(path),
		Entries:  []plugins.DesiredEntry{{Path: path, Rel: bundle.ModulesDir + "/" + id + ".mjs", SHA256: pin.SHA256}},
		DataDir:  filepath.Join(l.home, "extension-host", "data-builtin", "modules", id),
		Config:   config.Plugin{ID: owner, Config: map[string]any{}, JSON: cfgJSON, Digest: digest},
		Record:   &plugins.Record{ID: owner, Version: pin.SHA256[:builtinVersionLen], Enabled: true},
	}, nil
}

// verifyDesired checks d's bytes before an activation: a plugin's whole staged closure
// (plugins.Store.VerifyClosure), a builtin module's file against its pinned digest,
// materializing the bundle first when it is not yet on disk.
func (l *Layer) verifyDesired(d plugins.Desired) error {
	if !isBuiltinDesired(d) {
		return l.store.VerifyClosure(d.Record)
	}
	for _, e := range d.Entries {
		if err := bundle.VerifyModule(e.Path, e.SHA256); err == nil {
			continue
		}
		if _, err := bundle.Materialize(l.home, l.o.Bundle); err != nil {
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
// its tier's data folder (plugins.OpenDirNoFollow). own says the plugin has a host of its
// own, which works in that folder.
func (l *Layer) ensureDataDir(d plugins.Desired, own bool) (string, error) {
	if !isBuiltinDesired(d) {
		lay := l.store.Layout()
		dir, err := lay.EnsureDataDir(d.ID)
		if err != nil {
			return "", err
		}
		return dir, pluginAccess(l.SandboxStatus(), dir, lay.PluginDir(d.ID), own)
	}
	base, rel := l.dataPlace(d)
	r, err := plugins.OpenDirNoFollow(base, rel, true, 0o700)
	if err != nil {
		return "", err
	}
	r.Close()
	return d.DataDir, nil
}

// dataPlace splits d's data directory into its tier's data folder and the path below it.
func (l *Layer) dataPlace(d plugins.Desired) (base, rel string) {
	base = l.store.Layout().DataRoot()
	if isBuiltinDesired(d) {
		base = filepath.Join(l.home, "extension-host", "data-builtin")
	}
	rel, err := filepath.Rel(base, d.DataDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Dir(d.DataDir), filepath.Base(d.DataDir)
	}
	return base, rel
}

// checkReceipt is a call's receipt check: a plugin's receipt must still hold; a builtin
// module has none (its pin was checked before its activation).
func (l *Layer) checkReceipt(d plugins.Desired) error {
	if isBuiltinDesired(d) {
		return nil
	}
	return l.store.CheckReceipt(d.Record)
}

// noteBuiltin reports text about a builtin owner once per Manager.
func (l *Layer) noteBuiltin(owner, text string) {
	key := owner + "\x00" + text
	l.builtin.mu.Lock()
	if l.builtin.noted == nil {
		l.builtin.noted = map[string]bool{}
	}
	seen := l.builtin.noted[key]
	l.builtin.noted[key] = true
	l.builtin.mu.Unlock()
	if !seen {
		l.log.Warn("builtin module", "owner", owner, "note", text)
	}
}
