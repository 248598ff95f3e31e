package core

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/registry"
)

// PluginError is one enabled, trusted plugin that is not active after Reconcile: its
// activation failed (a syntax error, a bad export, a refused registration, a refused config
// table), it faulted, or its staged bytes no longer match its receipt. Reconcile joins one
// per such plugin into its error; errors.Is matches Kind (ErrExecutionFailed for the
// plugin's own code, ErrInvalidInput for a refused config table, ErrRefused for bytes that
// changed).
type PluginError struct {
	Plugin string
	State  string // failed, faulted, or "not activated" (the receipt no longer holds)
	Reason string // one line, the plugin's text: strip escapes before printing
	Kind   error
}

func (e *PluginError) Error() string {
	return fmt.Sprintf("plugin %s %s: %s", e.Plugin, e.State, e.Reason)
}

// Unwrap returns the errdefs kind.
func (e *PluginError) Unwrap() error { return e.Kind }

// PluginErrors splits an error returned by Reconcile or Reload into the per-plugin failures
// it joins and the rest (a tier that could not start, config.toml that does not load, a
// cancelled context), nil when there is no other error.
func PluginErrors(err error) (failed []*PluginError, rest error) {
	if err == nil {
		return nil, nil
	}
	var others []error
	var walk func(error)
	walk = func(e error) {
		if pe, ok := e.(*PluginError); ok {
			failed = append(failed, pe)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range j.Unwrap() {
				walk(c)
			}
			return
		}
		others = append(others, e)
	}
	walk(err)
	return failed, errors.Join(others...)
}

// Owners reports the latest owner of every plugin this Manager activated, sorted by plugin
// id: its state, the reason when it is not active and how long its activation took.
func (m *Manager) Owners() []OwnerInfo {
	m.mu.Lock()
	ids := make([]string, 0, len(m.owners))
	for id := range m.owners {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	slices.Sort(ids)
	out := make([]OwnerInfo, 0, len(ids))
	for _, id := range ids {
		if info, ok := m.Owner(id); ok {
			out = append(out, info)
		}
	}
	return out
}

// pluginFailures returns a *PluginError for every desired plugin whose latest owner failed
// or faulted, and for every plugin in unverified (id → why its bytes were refused).
func (m *Manager) pluginFailures(unverified map[string]string) []error {
	m.mu.Lock()
	ids := make([]string, 0, len(m.desired))
	for id := range m.desired {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	for id := range unverified {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var errs []error
	for _, id := range ids {
		if why, ok := unverified[id]; ok {
			errs = append(errs, &PluginError{Plugin: id, State: "not activated", Reason: why, Kind: errdefs.ErrRefused})
			continue
		}
		ro, ok := m.reg.Owner(id)
		if !ok || (ro.State != registry.Failed && ro.State != registry.Faulted) {
			continue
		}
		kind := ErrExecutionFailed
		m.mu.Lock()
		if d, ok := m.desired[id]; ok && d.Config.Err != nil {
			kind = ErrInvalidInput
		}
		m.mu.Unlock()
		errs = append(errs, &PluginError{Plugin: id, State: ro.State.String(), Reason: ro.Reason, Kind: kind})
	}
	return errs
}
