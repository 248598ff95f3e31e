package core

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/fetchproxy"
	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/mcpclient"
	"github.com/cwx-dev/cwx/core/owners"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/services"
	"github.com/cwx-dev/cwx/core/tickets"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// Open reads the cwx home, config.toml and the plugin state. It materializes nothing and
// starts no tier: tiers start in Reconcile, only when a desired plugin needs one. When a
// plugin is enabled it checks, once per process, that the shim program (Options.ShimPath or
// this executable) runs nodeshim.Main, by running it once as `<program> nodeshim` with a
// tier nodeshim refuses; a program that does not is ErrNoShim, saying what to change.
func Open(ctx context.Context, o Options) (*Manager, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	home := o.Home
	if home == "" {
		h, err := config.Home()
		if err != nil {
			return nil, err
		}
		home = h
	}
	log := o.Logger
	if log == nil {
		log = DefaultLogger()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Bundle.Bytes == nil {
		o.Bundle = bundle.Embedded()
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		return nil, err
	}
	posture, err := gate.ResolvePosture(o.Approval, cfg.ExtensionHost.Approval)
	if err != nil {
		return nil, err
	}
	provided, err := jshost.Provided()
	if err != nil {
		return nil, fmt.Errorf("read the host's provided modules: %w", err)
	}
	store, err := plugins.Open(plugins.Options{Home: home, Provided: provided.Provided, Refused: provided.Refused})
	if err != nil {
		return nil, err
	}
	st, err := store.State()
	if err != nil {
		return nil, err
	}
	if anyEnabled(st) && !o.Lazy { // a lazy Manager checks at its first tier start
		if err := owners.CheckShim(ctx, o.ShimPath, home, log); err != nil {
			return nil, err
		}
	}
	nat, err := openNatives(o, append([]string{home}, cfg.Hooks.Files...))
	if err != nil {
		return nil, err
	}
	m := &Manager{o: o, log: log, home: home, store: store, gate: gate.New(posture, o.Approver), nat: nat}
	m.hooks = &cmdHookRunner{log: log, gate: m.gate, store: store}
	m.hooks.transcripts.Dir = filepath.Join(home, "transcripts") // README, “Command hooks”
	m.pre = &preHooks{cmd: m.hooks, log: log}
	m.cc.log, m.cc.gate, m.cc.nat, m.cc.pre = log, m.gate, nat, m.pre
	m.cc.svc = services.Provided{Sessions: o.Sessions, Subagents: o.Subagents, Skills: o.Skills, GitReviewScope: o.GitReviewScope}
	oo := owners.Options{
		Home: home, Logger: log, Store: store, NativeTools: nat.set.Names(), BuiltinCommands: o.BuiltinCommands,
		Config: cfg, Requests: hostRequests{m},
		Builtin: map[string]owners.BuiltinSource{ScriptToolsModule: func(_ *config.Config, want map[string]plugins.Desired) (owners.BuiltinWork, error) {
			return scriptToolsWork(home, nat.set, m.reg, want)
		}, HooksModule: m.hooks.hooksWork},
		Bundle: o.Bundle, ShimPath: o.ShimPath, PollInterval: o.PollInterval, Tier: o.Tier, Lazy: o.Lazy, Now: o.Now, Isolate: o.Isolate,
		Fetch: fetchproxy.Options{Invocation: m.cc.fetchInvocation},
	}
	if testSeams != nil {
		testSeams(m, &oo)
	}
	m.own = owners.New(oo)
	m.reg = m.own.Registry()
	m.hooks.own, m.pre.own, m.cc.reg = m.own, m.own, m.reg
	m.mcp = (&MCPServers{home: home, log: log, store: store}).openSet(cfg, mcpclient.Options{Catalog: m.own.Catalog(), Version: "cwx", ToolsChanged: func(string) { m.own.CatalogChanged() },
		Keeper: func(ctx context.Context) (string, error) { return owners.CheckedShim(ctx, o.ShimPath, home, log) }})
	return m, nil
}

// testSeams, set only by this package's tests, adjusts each Manager's owner-layer options
// (fake tiers, hosts observed).
var testSeams func(*Manager, *owners.Options)

// hostRequests is the Manager as the owner layer's Requests: the host requests the call path
// answers (core/call, user/ask), and the end of an incarnation, whose tickets it revokes.
type hostRequests struct{ m *Manager }

func (r hostRequests) HandleRequest(ctx context.Context, t protocol.HostKey, gen uint64, msg *protocol.Message) (any, error) {
	switch p := msg.Value.(type) {
	case *protocol.CoreCallParams:
		return r.m.cc.serveCoreCall(ctx, t, gen, p)
	case *protocol.UserAskParams:
		return r.m.cc.serveUserAsk(ctx, t, gen, p)
	}
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: fmt.Sprintf("%s is not supported by this core", msg.Method)}
}

func (r hostRequests) HostEnded(t protocol.HostKey, gen uint64) {
	r.m.cc.tickets().RevokeHost(tickets.Host{Key: t, Generation: gen})
}
