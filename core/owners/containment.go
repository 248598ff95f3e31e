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
		return builtinContainment
	}
	l.mu.Lock()
	cfg := l.cfg
	l.mu.Unlock()
	s := containmentOf(l.SandboxStatus(), cfg, id)
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
		return builtinContainment
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		return "unknown: config.toml does not load (" + err.Error() + ")"
	}
	return containmentOf(SandboxFor(home), cfg, id)
}

// builtinContainment is a builtin module's containment.
const builtinContainment = "cwx's own JavaScript, unsandboxed, with your permissions"

// containmentOf composes Containment from the sandbox decision and plugin id's host and
// grants under cfg.
func containmentOf(st SandboxStatus, cfg *config.Config, id string) string {
	g := cfg.Plugin(id).Grants
	return containmentLine(st, hostFor(cfg, id), g.Written, g.Network)
}

// containmentLine is the line itself.
func containmentLine(st SandboxStatus, k protocol.HostKey, read, network []string) string {
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
