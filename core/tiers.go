package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// host is one incarnation of a tier's host as the Manager uses it (*supervisor.Host).
type host interface {
	Call(ctx context.Context, method string, params any, o rpc.CallOpts) (*protocol.Message, error)
	// Activate sends ext/activate, so that the supervisor can name the owner a crash
	// during it is blamed on.
	Activate(ctx context.Context, p protocol.ActivateParams, o rpc.CallOpts) (*protocol.Message, error)
	Generation() uint64
}

// tier is one tier's runtime as the Manager uses it (*supervisor.TierRuntime).
type tier interface {
	Ensure(ctx context.Context) (host, error)
	ReportDirtyTeardown()
	Retry()
	Status() supervisor.TierStatus
	Stop() supervisor.StopReport
}

// supervised is a supervisor.TierRuntime as a tier. Only Ensure is its own: it returns the
// ready *supervisor.Host as a host (and a nil interface, not a nil pointer, on error).
type supervised struct{ *supervisor.TierRuntime }

func (s supervised) Ensure(ctx context.Context) (host, error) {
	h, err := s.TierRuntime.Ensure(ctx)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// tierOf is the tier that serves a plugin id: host:<module> owners are builtin.
func tierOf(id string) protocol.Tier {
	if len(id) > len("host:") && id[:len("host:")] == "host:" {
		return protocol.TierBuiltin
	}
	return protocol.TierPlugin
}

// ensureTier returns the ready host of t, creating the tier on first need (resolving the
// runtime and materializing the bundle then, never before).
func (m *Manager) ensureTier(ctx context.Context, t protocol.Tier) (host, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", ErrNotAvailable, errClosed)
	}
	tr := m.peekLocked(t).rt
	m.mu.Unlock()
	if tr == nil {
		created, err := m.newTier(t)
		if err != nil {
			return nil, err
		}
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			created.Stop()
			return nil, fmt.Errorf("%w: %w", ErrNotAvailable, errClosed)
		}
		ts := m.tierLocked(t)
		if tr = ts.rt; tr == nil {
			tr, ts.rt = created, created
		}
		m.mu.Unlock()
		if tr != created {
			created.Stop() // another caller created the tier first; this one never started
		}
	}
	h, err := tr.Ensure(ctx)
	if err != nil && t == protocol.TierPlugin && ctx.Err() == nil {
		m.forgetSandboxSuccess()
	}
	return h, err
}

// forgetSandboxSuccess drops the cached successes of the sandbox probe after the sandboxed
// plugin tier failed to start: bubblewrap may have stopped working for a reason the cache's
// key does not cover (an AppArmor profile, a seccomp filter), so the next process probes
// again and `prefer` can fall back instead of failing on a stale success.
func (m *Manager) forgetSandboxSuccess() {
	if !m.SandboxStatus().Active {
		return
	}
	probeCache(m.home, m.log).Forget(runtime.SandboxProbeKind)
}

func (m *Manager) tier(t protocol.Tier) tier {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peekLocked(t).rt
}

// supervisedTier creates the real tier: runtime resolved (and pinned) from config.toml,
// bundle materialized under the home, a supervisor.TierRuntime with the Manager as its
// owner layer.
func (m *Manager) supervisedTier(t protocol.Tier) (tier, error) {
	m.mu.Lock()
	cfg, rt := m.cfg, m.rt
	m.mu.Unlock()
	if rt == nil {
		r, err := resolveRuntime(cfg, m.home)
		if err != nil {
			return nil, err
		}
		m.mu.Lock()
		if m.rt == nil {
			m.rt = &r
		}
		rt = m.rt
		m.mu.Unlock()
	}
	mat, err := bundle.Materialize(m.home, m.o.Bundle)
	if err != nil {
		return nil, fmt.Errorf("materialize the extension host bundle: %w", err)
	}
	dir := filepath.Join(m.home, "extension-host", "data")
	if t == protocol.TierBuiltin {
		dir = filepath.Join(m.home, "extension-host", "data-builtin")
	}
	if err := config.EnsureDir(dir); err != nil {
		return nil, err
	}
	o := supervisor.Options{
		Tier: t, Runtime: *rt, BundlePath: mat.Path, BundleSHA256: mat.SHA256,
		MemoryLimitBytes: cfg.ExtensionHost.MemoryLimitBytes(), Dir: dir,
		Owners: ownerLayer{m}, ShimPath: m.o.ShimPath, Logger: m.log,
	}
	if t == protocol.TierPlugin {
		if o.Sandbox, err = m.pluginSandbox(cfg.ExtensionHost, *rt, mat, dir); err != nil {
			return nil, err
		}
	}
	if m.o.Tier != nil {
		m.o.Tier(&o)
	}
	tr, err := supervisor.NewTier(o)
	if err != nil {
		return nil, err
	}
	return supervised{tr}, nil
}

func resolveRuntime(cfg *config.Config, home string) (runtime.Runtime, error) {
	wd, _ := os.Getwd()
	userHome, _ := os.UserHomeDir()
	res, err := runtime.Resolve(context.Background(), runtime.Options{
		Kind: runtime.Kind(cfg.ExtensionHost.Runtime), NodePath: cfg.ExtensionHost.Node, BunPath: cfg.ExtensionHost.Bun,
		PathEnv: os.Getenv("PATH"), WorkDir: wd, HomeDir: userHome, ConfigFile: config.Path(home),
		Cache: probeCache(home, nil),
	})
	if err != nil {
		return runtime.Runtime{}, fmt.Errorf("%w: %w", ErrNotAvailable, err)
	}
	return res.Chosen, nil
}

// Retry clears a Failed tier's crash budget; its next need spawns it again (and replays
// the desired owners).
func (m *Manager) Retry(t protocol.Tier) {
	if tr := m.tier(t); tr != nil {
		tr.Retry()
	}
}

// HostInfo is what the repl prints about one tier's current incarnation.
type HostInfo struct {
	Tier       protocol.Tier
	State      supervisor.State
	Generation uint64 // host generation (bumped on every start)
	RuntimePID int    // 0 when no incarnation is ready
	Crashes    int    // unexpected ends of this tier's hosts seen by this Manager
}

// Host reports one tier's incarnation: runtime pid, host generation and crash count.
func (m *Manager) Host(t protocol.Tier) HostInfo {
	info := HostInfo{Tier: t, State: supervisor.StateIdle}
	m.mu.Lock()
	ts := m.peekLocked(t)
	tr := ts.rt
	info.Crashes = ts.crashes
	m.mu.Unlock()
	if tr != nil {
		st := tr.Status()
		info.State, info.Generation, info.RuntimePID = st.State, st.Generation, st.RuntimePID
	}
	return info
}

// KillRuntime sends SIGKILL to the tier's runtime process (a test hook for people: the
// repl's `/host kill`). The supervisor sees the crash and restarts within its budget.
func (m *Manager) KillRuntime(t protocol.Tier) error {
	info := m.Host(t)
	if info.RuntimePID <= 0 {
		return fmt.Errorf("%w: the %s tier has no running runtime", ErrNotAvailable, t)
	}
	if err := syscall.Kill(info.RuntimePID, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the %s runtime (pid %d): %w", t, info.RuntimePID, err)
	}
	return nil
}

// TierStatus is one tier's state as the supervisor sees it, plus what the Manager counts:
// crashes and live owners. Its JSON form is `cwx host status --json`.
type TierStatus struct {
	Tier           Tier      `json:"tier"`
	State          TierState `json:"state"`
	Generation     uint64    `json:"generation"`
	ShimPID        int       `json:"shim_pid,omitempty"`
	RuntimePID     int       `json:"runtime_pid,omitempty"`
	RuntimePGID    int       `json:"runtime_pgid,omitempty"`
	Runtime        string    `json:"runtime"`         // node or bun
	RuntimeVersion string    `json:"runtime_version"` // as probed
	RuntimePath    string    `json:"runtime_path"`
	UptimeMS       int64     `json:"uptime_ms"` // since the current incarnation was ready
	LastFailure    string    `json:"last_failure,omitempty"`
	StderrTail     string    `json:"stderr_tail,omitempty"` // of the last failure
	Crashes        int       `json:"crashes"`               // within the crash window, as the Manager counts them
	Owners         int       `json:"owners"`                // active owners on the tier
	// LastBlame names the plugin the newest fault or end of the tier's host was blamed on,
	// and why ("plugin `id`: reason"); empty when nothing was attributed.
	LastBlame string `json:"last_blame,omitempty"`
	// Sandbox is one line on the tier's containment: SandboxStatus.Note for the plugin
	// tier, BuiltinSandboxNote for the builtin tier (ARCHITECTURE.md, “Sandbox”).
	Sandbox string `json:"sandbox,omitempty"`
}

// tierStatusOf copies the supervisor's view of a tier into the core's type.
func tierStatusOf(st supervisor.TierStatus) TierStatus {
	return TierStatus{Tier: st.Tier, State: st.State, Generation: st.Generation, ShimPID: st.ShimPID,
		RuntimePID: st.RuntimePID, RuntimePGID: st.RuntimePGID, Runtime: st.Runtime,
		RuntimeVersion: st.RuntimeVersion, RuntimePath: st.RuntimePath, UptimeMS: st.UptimeMS,
		LastFailure: st.LastFailure, StderrTail: st.StderrTail}
}

// Status reports both tiers; a tier never started is "idle".
func (m *Manager) Status() []TierStatus {
	var out []TierStatus
	for _, t := range []protocol.Tier{protocol.TierPlugin, protocol.TierBuiltin} {
		st := supervisor.TierStatus{Tier: t, State: supervisor.StateIdle}
		if tr := m.tier(t); tr != nil {
			st = tr.Status()
		}
		m.mu.Lock()
		peek := m.peekLocked(t)
		m.mu.Unlock()
		crashes := peek.crashes
		note := BuiltinSandboxNote
		if t == protocol.TierPlugin {
			note = m.SandboxStatus().Note
		}
		ts := tierStatusOf(st)
		ts.Crashes, ts.Owners, ts.Sandbox, ts.LastBlame = crashes, m.reg.ActiveOwners(t), note, peek.lastBlame
		out = append(out, ts)
	}
	return out
}
