package core

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/core/supervisor"
)

// TestHangDuringActivationBlame: how the end of a host during two activations is blamed
// and counted, by what the supervisor reports: a blocked activation attributed to one
// owner fails it for blocking the host and is no crash; a hang kill with both in flight
// leaves both suspects and is one crash; a crash attributed to one owner fails it for
// crashing the host; a kill for not answering whose watchdog named an owner blames that one,
// and the same note beside any other end blames nobody.
func TestHangDuringActivationBlame(t *testing.T) {
	const tool, command = "fixture-tool", "fixture-command"
	cases := []struct {
		name     string
		info     func(tool protocol.OwnerRef) supervisor.ExitInfo
		failed   string // the owner failed, "" for none
		reason   string
		suspects []string
		crashes  int
	}{
		{"blocked, attributed", func(r protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Hung: true, Blocked: true, Activating: &r}
		}, tool, blockedReason, nil, 0},
		{"blocked, two in flight", func(protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Hung: true, Blocked: true}
		}, "", "", []string{command, tool}, 1},
		{"heartbeat kill, two in flight", func(protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Hung: true}
		}, "", "", []string{command, tool}, 1},
		{"heartbeat kill, attributed", func(r protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Hung: true, Activating: &r}
		}, tool, blockedReason, nil, 1},
		{"crash, attributed", func(r protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Activating: &r}
		}, tool, "host crashed during activation: killed", nil, 1},
		{"heartbeat kill, the watchdog named one", func(r protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Hung: true, Busy: &r}
		}, tool, "a callback of the plugin did not return and blocked the host: killed", nil, 1},
		{"blocked, the watchdog named one", func(r protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Hung: true, Blocked: true, Busy: &r}
		}, tool, "a callback of the plugin did not return and blocked the host: killed", nil, 1},
		{"crash, the watchdog named one: unattributed", func(r protocol.OwnerRef) supervisor.ExitInfo {
			return supervisor.ExitInfo{Busy: &r}
		}, "", "", []string{command, tool}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, ft, _ := newFake(t, twoPlugins, "tool", "command")
			gate := make(chan struct{})
			ft.mu.Lock()
			ft.activateGate[tool], ft.activateGate[command] = gate, gate
			ft.mu.Unlock()
			done := make(chan error, 1)
			go func() { done <- m.Reconcile(context.Background()) }()
			waitFor(t, "both activating", func() bool {
				a, okA := m.reg.Owner(tool)
				b, okB := m.reg.Owner(command)
				ft.mu.Lock()
				defer ft.mu.Unlock()
				return okA && okB && a.State == registry.Activating && b.State == registry.Activating && len(ft.activated) == 2
			})
			ft.mu.Lock()
			h := ft.h
			h.dead, ft.h = true, nil
			ft.mu.Unlock()
			ref := ownerOf(t, m, tool).Ref
			info := c.info(ref)
			info.Reason = errors.New("killed")
			m.own.HostExited(ft.t, h.gen, info)
			close(gate)
			if _, err := PluginErrors(<-done); err != nil { // the blamed plugin's failure is checked below
				t.Fatal(err)
			}
			suspects := m.Status()[0].Suspects
			if !slices.Equal(suspects, c.suspects) || info.Crash() != (c.crashes == 1) {
				t.Fatalf("suspects %v, crash %t; want %v, %d", suspects, info.Crash(), c.suspects, c.crashes)
			}
			if c.failed == "" {
				return
			}
			if o, ok := m.reg.Owner(c.failed); !ok || o.State != registry.Failed || o.Reason != c.reason {
				t.Fatalf("owner %+v, want failed with %q", o, c.reason)
			}
		})
	}
}
