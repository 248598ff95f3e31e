package runtime

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SandboxEnv marks a launch plan whose argv starts with bubblewrap: the shim reads the
// runtime's real pid from bubblewrap's info descriptor and gives the runtime no parent pid to
// watch (in its PID namespace the shim is invisible), and the exec helper drops the
// controlling terminal (ARCHITECTURE.md, “Sandbox”). The runtime inherits the variable but
// the JS host does not read it.
const SandboxEnv = "CWX_HOST_SANDBOX"

// SandboxInfoFD is the descriptor on which bubblewrap reports its child's pid (--info-fd);
// the shim opens it for a sandboxed plan.
const SandboxInfoFD = 5

// Profile is what the plugin tier's bubblewrap sandbox mounts (ARCHITECTURE.md, “Sandbox”).
// Every path is absolute.
type Profile struct {
	Bwrap     string   // the bwrap binary
	Runtime   string   // the runtime binary, bound back read-only
	Bundle    string   // the materialized bundle's folder, read-only
	Plugins   string   // $CWX_HOME/plugins, read-only
	Data      string   // $CWX_HOME/extension-host/data, the only writable tree
	Workspace string   // bound read-only when not ""
	DenyRead  []string // masked even inside a mounted tree
}

// systemTrees are mounted read-only (a symlink, as on merged-/usr systems, is recreated).
var systemTrees = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// systemSecrets are masked inside /etc: files root may read even without capabilities.
var systemSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssl/private", "/etc/security/opasswd",
}

// Args returns the bubblewrap argv up to and including "--": the binary, the namespaces and
// the mounts, in the order bubblewrap applies them (trees first, then what is bound back,
// then the masks, so a mask always wins).
func (p Profile) Args() []string { return p.args(true) }

func (p Profile) args(infoFD bool) []string {
	// No --new-session: the exec helper drops the controlling terminal instead (the same
	// protection against TIOCSTI and /dev/tty), because a new session is a new scheduler
	// autogroup, and handing the CPU between the shim's group and the runtime's on every
	// round trip cost 20–40 µs per call and ~30 ms at start on a loaded machine
	// (BENCHMARKS.md, “The plugin tier's sandbox”).
	a := []string{p.Bwrap,
		"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--cap-drop", "ALL",
		"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
	}
	for _, t := range systemTrees {
		a = appendTree(a, t)
	}
	a = appendBind(a, "--ro-bind", p.Runtime)
	if real, err := filepath.EvalSymlinks(p.Runtime); err == nil && real != p.Runtime {
		a = appendBind(a, "--ro-bind", real)
	}
	a = appendBind(a, "--ro-bind", p.Bundle)
	a = appendBind(a, "--ro-bind", p.Plugins)
	a = appendBind(a, "--bind", p.Data)
	if p.Workspace != "" {
		a = appendBind(a, "--ro-bind", p.Workspace)
	}
	for _, m := range append(append([]string(nil), systemSecrets...), hostKeys()...) {
		if _, err := os.Lstat(m); err == nil {
			a = appendMask(a, m)
		}
	}
	for _, m := range p.DenyRead {
		a = appendMask(a, m)
	}
	if p.Data != "" {
		a = append(a, "--chdir", p.Data)
	}
	a = append(a, "--setenv", "TMPDIR", "/tmp")
	if infoFD {
		a = append(a, "--info-fd", strconv.Itoa(SandboxInfoFD))
	}
	return append(a, "--")
}

// Wrap returns plan run inside p: argv prefixed by the profile, SandboxEnv set.
func (plan LaunchPlan) Wrap(p Profile) LaunchPlan {
	out := plan
	out.Argv = append(p.Args(), plan.Argv...)
	out.Env = dedupeEnv(append(append([]string(nil), plan.Env...), SandboxEnv+"=bwrap"))
	out.Sandbox = "bubblewrap"
	return out
}

func appendTree(a []string, path string) []string {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return a
	case fi.Mode()&os.ModeSymlink != 0:
		if target, err := os.Readlink(path); err == nil {
			return append(a, "--symlink", target, path)
		}
		return a
	default:
		return append(a, "--ro-bind", path, path)
	}
}

func appendBind(a []string, flag, path string) []string {
	if path == "" {
		return a
	}
	if _, err := os.Stat(path); err != nil {
		return a
	}
	return append(a, flag, path, path)
}

// appendMask hides path: a folder under an empty read-only tmpfs, a file under /dev/null
// (which the sandbox mounts nodev, so it cannot even be opened). A path that does not exist
// yet masks its nearest existing folder instead, so that creating it later shows nothing.
func appendMask(a []string, path string) []string {
	for p := filepath.Clean(path); p != "/" && p != "."; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			return append(a, "--tmpfs", p, "--remount-ro", p)
		}
		return append(a, "--ro-bind", "/dev/null", p)
	}
	return a
}

// hostKeys lists the SSH host private keys (/etc/ssh/ssh_host_*_key).
func hostKeys() []string {
	m, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
	return m
}

// SandboxArgs returns the bubblewrap part of a plan's argv (up to and including "--"), or
// nil when the plan is not sandboxed.
func SandboxArgs(plan LaunchPlan) []string {
	if plan.Sandbox == "" {
		return nil
	}
	for i, s := range plan.Argv {
		if s == "--" {
			return plan.Argv[:i+1]
		}
	}
	return nil
}

// isUnder reports whether path is root or inside it.
func isUnder(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}
