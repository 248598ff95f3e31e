package owners

import (
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Containment says in one line how plugin id is contained on this machine, for every
// surface that tells a person what a plugin can do (approval cards, review, `plugin show`):
// sandboxed or not (and why not), in a host of its own or sharing the plugin tier's, and its
// grants. A builtin module's says it runs unsandboxed as cwx's own code.
func (l *Layer) Containment(id string) string {
	if TierOf(id) == protocol.TierBuiltin {
		return "cwx's own JavaScript, unsandboxed, with your permissions"
	}
	l.mu.Lock()
	cfg := l.cfg
	k := hostFor(cfg, id)
	l.mu.Unlock()
	s := containmentOf(l.SandboxStatus(), k, cfg.Plugin(id).Grants.Written, cfg.Plugin(id).Grants.Network)
	for _, h := range l.reg.Hooks() {
		if h.PluginID == id {
			return s + "; holds a pre-execute hook: sees every tool call's arguments"
		}
	}
	return s
}

// ContainmentFor is Containment without a Manager, for the surfaces that read only the home
// (a review, `plugin show`): config.toml's isolation and grants and the sandbox decision.
func ContainmentFor(home, id string) string {
	if TierOf(id) == protocol.TierBuiltin {
		return "cwx's own JavaScript, unsandboxed, with your permissions"
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		return "unknown: config.toml does not load (" + err.Error() + ")"
	}
	g := cfg.Plugin(id).Grants
	return containmentOf(SandboxFor(home), hostFor(cfg, id), g.Written, g.Network)
}

// containmentOf composes Containment from the sandbox decision, the plugin's host and its
// grants.
func containmentOf(st SandboxStatus, k protocol.HostKey, read, network []string) string {
	if !st.Active {
		why := "unsandboxed: runs JavaScript with your user permissions"
		if st.Problem != "" {
			why += " (" + strings.SplitN(st.Problem, ";", 2)[0] + ")"
		}
		return why
	}
	s := "sandboxed: no network, only its own files"
	if len(read) > 0 {
		s += ", and reads " + strings.Join(read, ", ")
	}
	if len(network) > 0 {
		s += fmt.Sprintf(", granted %s (not reachable yet)", strings.Join(network, ", "))
	}
	if k.Isolated() {
		return s + "; in a host of its own"
	}
	return s + "; shares one process with the plugin tier's other plugins"
}
