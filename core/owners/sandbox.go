package owners

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/runtime"
)

// SandboxStatus says how the plugin tier is contained (ARCHITECTURE.md, “Sandbox”). Its
// JSON form is part of `cwx host status --json`.
type SandboxStatus struct {
	Mode   string `json:"mode"`   // [extension_host] sandbox: required, prefer or off
	Active bool   `json:"active"` // the plugin tier runs inside bubblewrap
	Bwrap  string `json:"bwrap,omitempty"`
	// User is the identity the runtime drops to inside the sandbox when cwx runs as root.
	User    *runtime.SandboxUser `json:"user,omitempty"`
	Note    string               `json:"note"`              // one line for every review, plugin show and host status
	Problem string               `json:"problem,omitempty"` // why the probe failed, with the fix
}

// BuiltinSandboxNote is what the builtin tier's status says: it is first-party code that
// starts user hooks, so it is not put in the plugin tier's sandbox.
const BuiltinSandboxNote = "not sandboxed: the builtin tier runs first-party code with your user permissions"

// sandboxState caches the decision once per Manager.
type sandboxState struct {
	mu   sync.Mutex
	done bool          // +checklocks:mu
	st   SandboxStatus // +checklocks:mu
}

// RequiredRefusedNote is what the surfaces say under sandbox = "required" when the sandbox
// does not work: the plugin tier does not run at all, so it is not "unsandboxed".
const RequiredRefusedNote = `refused: sandbox = "required" and the OS sandbox does not work, so the plugin tier does not start`

// decideSandbox applies the mode to what resolution and the probe found. The probe's
// success may come from cache (an earlier process, the same binaries and kernel settings);
// the plugin tier is launched under bubblewrap all the same, so a sandbox that stopped
// working fails the launch.
func decideSandbox(eh config.ExtensionHost, runtimePath, shim string, cache runtime.ProbeCache) SandboxStatus {
	st := SandboxStatus{Mode: eh.Sandbox, Note: runtime.Unsandboxed}
	if eh.Sandbox == config.SandboxOff {
		return st
	}
	if eh.Sandbox == config.SandboxRequired {
		st.Note = RequiredRefusedNote
	}
	wd, _ := os.Getwd()
	bw, err := runtime.ResolveBwrap(eh.Bwrap, os.Getenv("PATH"), wd)
	if err != nil {
		st.Problem = err.Error() + "; " + runtime.BwrapMissingFix
		return st
	}
	st.Bwrap = bw
	user, err := SandboxUserFor(eh, shim)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	probe := runtime.Profile{Bwrap: bw, Runtime: runtimePath, User: user}
	why := runtime.ProbeSandboxCached(context.Background(), cache, probe, runtime.DefaultSandboxProbeTimeout)
	if why != "" && user != nil && user.Setpriv != "" && strings.Contains(why, "setpriv") {
		// setpriv is the cheaper drop; where it is what failed (an old util-linux without
		// one of the flags), cwx's own does. A failure of bubblewrap itself is not retried.
		own := *user
		own.Setpriv = ""
		probe.User = &own
		if runtime.ProbeSandboxCached(context.Background(), cache, probe, runtime.DefaultSandboxProbeTimeout) == "" {
			why, user = "", &own
		}
	}
	st.User = user
	if why != "" {
		st.Problem = why + "; " + runtime.SandboxFix(why)
		return st
	}
	st.Active = true
	st.Note = "sandboxed: bubblewrap (no network, no other processes, writes only in the data folders)"
	if user != nil {
		st.Note = fmt.Sprintf("sandboxed: bubblewrap as uid %d (no network, no other processes, writes only in the data folders)", user.UID)
	}
	return st
}

// SandboxUserFor is the identity the plugin tier's runtime gets inside the sandbox: nil
// when cwx does not run as root (the runtime keeps the caller's uid, which is not 0), else
// [extension_host] sandbox_uid, dropped to inside the sandbox by util-linux's setpriv from
// the read-only /usr when it is there (decideSandbox falls back when it does not work), else
// by shim (this executable when "").
func SandboxUserFor(eh config.ExtensionHost, shim string) (*runtime.SandboxUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if shim == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find this executable to drop privileges inside the sandbox: %w", err)
		}
		shim = exe
	}
	u := &runtime.SandboxUser{UID: eh.SandboxUID, GID: eh.SandboxUID, Shim: shim}
	if fi, err := os.Stat(SetprivPath); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
		u.Setpriv = SetprivPath
	}
	return u, nil
}

// SetprivPath is util-linux's setpriv, inside the read-only /usr the sandbox mounts (a
// variable for tests).
var SetprivPath = "/usr/bin/setpriv"

// SandboxFor is SandboxStatus without a Manager, for the surfaces that read only the home
// (a review, `plugin show`): config.toml's mode, the runtime it resolves and the probe.
func SandboxFor(home string) SandboxStatus {
	cfg, err := config.LoadHome(home)
	if err != nil {
		return SandboxStatus{Note: runtime.Unsandboxed, Problem: err.Error()}
	}
	rt, err := resolveRuntime(cfg, home)
	if err != nil {
		return SandboxStatus{Mode: cfg.ExtensionHost.Sandbox, Note: runtime.Unsandboxed, Problem: err.Error()}
	}
	return decideSandbox(cfg.ExtensionHost, rt.Path, "", probeCache(home, nil))
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
