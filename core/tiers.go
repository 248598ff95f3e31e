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
	Generation() uint64
}

// tier is one tier's runtime as the Manager uses it (*supervisor.TierRuntime).
type tier interface {
	Ensure(ctx context.Context) (host, error)
	ReportDirtyTeardown()
	Retry()
	Status() supervisor.TierStatus
	Stop()
}

type supTier struct{ t *supervisor.TierRuntime }

func (s supTier) Ensure(ctx context.Context) (host, error) {
	h, err := s.t.Ensure(ctx)
	if err != nil {
		return nil, err
	}
	return h, nil
}
func (s supTier) ReportDirtyTeardown()          { s.t.ReportDirtyTeardown() }
func (s supTier) Retry()                        { s.t.Retry() }
func (s supTier) Status() supervisor.TierStatus { return s.t.Status() }
func (s supTier) Stop()                         { s.t.Stop() }

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
	tr := m.tiers[t]
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
		if tr = m.tiers[t]; tr == nil {
			tr, m.tiers[t] = created, created
		}
		m.mu.Unlock()
		if tr != created {
			created.Stop() // another caller created the tier first; this one never started
		}
	}
	return tr.Ensure(ctx)
}

func (m *Manager) tier(t protocol.Tier) tier {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tiers[t]
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
	if m.o.Tier != nil {
		m.o.Tier(&o)
	}
	tr, err := supervisor.NewTier(o)
	if err != nil {
		return nil, err
	}
	return supTier{tr}, nil
}

func resolveRuntime(cfg *config.Config, home string) (runtime.Runtime, error) {
	wd, _ := os.Getwd()
	userHome, _ := os.UserHomeDir()
	res, err := runtime.Resolve(context.Background(), runtime.Options{
		Kind: runtime.Kind(cfg.ExtensionHost.Runtime), NodePath: cfg.ExtensionHost.Node, BunPath: cfg.ExtensionHost.Bun,
		PathEnv: os.Getenv("PATH"), WorkDir: wd, HomeDir: userHome, ConfigFile: config.Path(home),
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
	tr := m.tier(t)
	m.mu.Lock()
	info.Crashes = m.crashes[t]
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

// TierStatus is one tier's state (supervisor.TierStatus) plus what the Manager counts:
// crashes and live owners. Its JSON form is `cwx host status --json`.
type TierStatus struct {
	supervisor.TierStatus
	Crashes int `json:"crashes"`
	Owners  int `json:"owners"` // active owners on the tier
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
		ts := TierStatus{TierStatus: st, Crashes: m.crashes[t]}
		for _, o := range m.owners {
			if o.tier == t && o.phase == phaseActive {
				ts.Owners++
			}
		}
		m.mu.Unlock()
		out = append(out, ts)
	}
	return out
}
