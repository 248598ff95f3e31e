package owners

import (
	"context"
	"fmt"
	"sync"

	"github.com/cwx-dev/cwx/core/fetchproxy"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/registry"
)

// New opens the owner layer over o.Store. It starts no tier and writes nothing: tiers start
// in Reconcile, only when a desired plugin needs one.
func New(o Options) *Layer {
	bg, cancel := context.WithCancel(context.Background())
	feed := &changeFeed{}
	l := &Layer{
		o: o, log: o.Logger, home: o.Home, store: o.Store,
		reg:     registry.New(registry.Options{NativeTools: o.NativeTools, BuiltinCommands: o.BuiltinCommands, Changed: feed.notify}),
		logs:    newLogLimiter(o.Now),
		cfg:     isolated(o.Config, o.Isolate),
		desired: map[string]plugins.Desired{}, owners: map[string]*Owner{}, blocked: map[string]string{},
		tiers: map[protocol.HostKey]*tierState{},
		bg:    bg, bgCancel: cancel, stopped: make(chan struct{}),
		changes: feed,
	}
	real := l.supervisedTier
	if o.Lazy {
		real = l.shimCheckedTier
	}
	l.newTier = real
	if o.NewTier != nil {
		l.newTier = func(k protocol.HostKey) (Tier, error) { return o.NewTier(k, real) }
	}
	if o.Fetch.Logger == nil {
		o.Fetch.Logger = o.Logger
	}
	l.fetch = fetchproxy.New(o.Fetch)
	l.lazy.open(o.Home, o.Bundle, o.Logger)
	l.diags = newDiagWriter(o.Store, o.Logger)
	l.wg.Add(1)
	go func() { defer l.wg.Done(); l.diags.run(bg) }()
	return l
}

// Close fails the calls in flight (revoking nothing by itself), stops the state watcher and
// shuts every tier down within its bound (host/shutdown, then SIGTERM, then SIGKILL at
// supervisor.DefaultKillAfter). It returns ctx's error if ctx ends first; the shutdown still
// completes in the background within its bound.
func (l *Layer) Close(ctx context.Context) error {
	l.closeOnce.Do(func() {
		l.mu.Lock()
		l.closed = true
		for _, o := range l.owners {
			o.end(causeClosed)
		}
		tiers := make([]Tier, 0, len(l.tiers))
		for _, ts := range l.tiers {
			if ts.rt != nil {
				tiers = append(tiers, ts.rt)
			}
		}
		l.mu.Unlock()
		l.bgCancel()
		l.fetch.Close()
		go func() {
			defer close(l.stopped)
			var wg sync.WaitGroup
			for _, t := range tiers {
				wg.Add(1)
				go func() { defer wg.Done(); t.Stop() }()
			}
			wg.Wait()
			l.wg.Wait()
		}()
	})
	select {
	case <-l.stopped:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close the extension hosts: %w", context.Cause(ctx))
	}
}
