package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/seccomp"
	"github.com/cwx-dev/cwx/shared"
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

// SandboxSeccompFD is the descriptor on which bubblewrap reads the seccomp filter
// (--seccomp); the shim and the probe open it from the plan's filter.
const SandboxSeccompFD = 6

// Profile is what the plugin tier's bubblewrap sandbox mounts (ARCHITECTURE.md, “Sandbox”).
// Every path is absolute.
type Profile struct {
	Bwrap     string       // the bwrap binary
	Runtime   string       // the runtime binary, bound back read-only
	Bundle    string       // the materialized bundle's folder, read-only
	Bytecode  string       // the host's Bun bytecode cache folder, read-only, when it has one
	Plugins   string       // $CWX_HOME/plugins, read-only
	Data      string       // $CWX_HOME/extension-host/data, the only writable tree
	Workspace string       // bound read-only when not ""
	Grants    []string     // canonical paths a plugin's own host is granted, bound read-only
	DenyRead  []string     // masked even inside a mounted tree
	User      *SandboxUser // the identity the runtime gets when cwx runs as root; nil keeps the caller's
}

// SandboxUser is the unprivileged identity the runtime runs as when cwx runs as root, so
// that the kernel never sees uid 0 inside the sandbox (ARCHITECTURE.md, “Sandbox”).
// bubblewrap itself runs as root, so it can reach every bound path whatever the modes of
// its parents, and keeps only CAP_SETUID and CAP_SETGID for the drop, which the kernel
// clears with the uid change. The drop is util-linux's setpriv from the read-only system
// tree when Setpriv names it (a few milliseconds), else Shim, the cwx binary bound read-only
// (`cwx nodeshim drop-privileges`, which also checks that nothing is left, but costs a Go
// start of the whole binary, about 35 ms).
type SandboxUser struct {
	UID     uint32 `json:"uid"`
	GID     uint32 `json:"gid"`
	Shim    string `json:"shim"`
	Setpriv string `json:"setpriv,omitempty"`
}

// procReadOnly are bound read-only onto themselves after the fresh /proc: bubblewrap covers
// them only when access(W_OK) succeeds, which it does not for /proc/sys (and a remount is
// refused there: they are not mount points).
var procReadOnly = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"}

// procMasked are Docker's masked /proc paths, hidden where this kernel has them (masking a
// missing path makes bubblewrap fail).
var procMasked = []string{
	"/proc/kcore", "/proc/keys", "/proc/key-users", "/proc/timer_list", "/proc/sched_debug",
	"/proc/latency_stats", "/proc/acpi", "/proc/scsi", "/proc/kallsyms",
}

// KernelSurface is what the profile does to /proc on this machine: the paths bound
// read-only and the paths masked (each only where it exists).
func KernelSurface() (readOnly, masked []string) {
	for _, p := range procReadOnly {
		if _, err := os.Lstat(p); err == nil {
			readOnly = append(readOnly, p)
		}
	}
	for _, p := range procMasked {
		if _, err := os.Lstat(p); err == nil {
			masked = append(masked, p)
		}
	}
	return readOnly, masked
}

// Filter is the seccomp filter every sandboxed runtime gets, built once per process.
var Filter = sync.OnceValues(seccomp.Build)

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
	}
	if p.User != nil {
		// Only for the drop to p.User, which clears them (see SandboxUser).
		a = append(a, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
	}
	a = append(a, "--proc", "/proc")
	readOnly, masked := KernelSurface()
	for _, k := range readOnly {
		a = append(a, "--ro-bind", k, k)
	}
	for _, k := range masked {
		a = appendMask(a, k)
	}
	// /tmp is writable by whoever the runtime runs as (the sticky bit as on any /tmp).
	a = append(a, "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp")
	for _, t := range systemTrees {
		a = appendTree(a, t)
	}
	b := binder{a: a, made: map[string]bool{}}
	b.bind("--ro-bind", p.Runtime)
	if real, err := filepath.EvalSymlinks(p.Runtime); err == nil && real != p.Runtime {
		b.bind("--ro-bind", real)
	}
	if p.User != nil && p.User.Setpriv == "" {
		b.bind("--ro-bind", p.User.Shim)
		if real, err := filepath.EvalSymlinks(p.User.Shim); err == nil && real != p.User.Shim {
			b.bind("--ro-bind", real)
		}
	}
	b.bind("--ro-bind", p.Bundle)
	if p.Bytecode != "" {
		b.bind("--ro-bind", p.Bytecode)
	}
	b.bind("--ro-bind", p.Plugins)
	b.bind("--bind", p.Data)
	if p.Workspace != "" {
		b.bind("--ro-bind", p.Workspace)
	}
	for _, g := range p.Grants {
		b.bind("--ro-bind", g)
	}
	a = b.a
	for _, m := range append(append([]string(nil), systemSecrets...), hostKeys()...) {
		if _, err := os.Lstat(m); err == nil {
			a = appendMask(a, m)
		}
	}
	for _, m := range p.DenyRead {
		a = appendMask(a, m)
	}
	if p.Data != "" && (p.User == nil || p.User.Setpriv != "") {
		// The cwx drop changes into it itself, as the user; for setpriv the folder is
		// 0711, which root without capabilities may cross.
		a = append(a, "--chdir", p.Data)
	}
	a = append(a, "--setenv", "TMPDIR", "/tmp", "--seccomp", strconv.Itoa(SandboxSeccompFD))
	if infoFD {
		a = append(a, "--info-fd", strconv.Itoa(SandboxInfoFD))
	}
	return append(a, "--")
}

// command is argv as bubblewrap runs it: through the shim's privilege drop when p.User is
// set, as it is otherwise.
func (p Profile) command(argv []string) []string {
	if p.User == nil {
		return argv
	}
	if u := p.User; u.Setpriv != "" {
		return append([]string{u.Setpriv, fmt.Sprintf("--reuid=%d", u.UID), fmt.Sprintf("--regid=%d", u.GID),
			"--clear-groups", "--inh-caps=-all", "--ambient-caps=-all", "--pdeathsig=KILL", "--"}, argv...)
	}
	dir := p.Data
	if dir == "" {
		dir = "/"
	}
	return append([]string{p.User.Shim, shared.Subcommand, shared.DropPrivilegesMode,
		fmt.Sprintf("%d:%d", p.User.UID, p.User.GID), dir, "--"}, argv...)
}

// Wrap returns plan run inside p: argv prefixed by the profile (and the privilege drop),
// SandboxEnv set, the seccomp filter attached. When the filter cannot be built for this
// architecture the plan carries none and bubblewrap refuses to start; the sandbox probe
// reports why first.
func (plan LaunchPlan) Wrap(p Profile) LaunchPlan {
	out := plan
	out.Argv = append(p.Args(), p.command(plan.Argv)...)
	out.Env = dedupeEnv(append(append([]string(nil), plan.Env...), SandboxEnv+"=bwrap"))
	out.Sandbox = "bubblewrap"
	if f, err := Filter(); err == nil {
		out.Seccomp = f.Bytes()
	}
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

// binder appends bind mounts, first creating each destination's missing parents with mode
// 0755: bubblewrap makes them 0700, owned by root, which a runtime dropped to SandboxUser
// could not cross.
type binder struct {
	a    []string
	made map[string]bool // parents already created
}

func (b *binder) bind(flag, path string) {
	if path == "" {
		return
	}
	if _, err := os.Stat(path); err != nil {
		return
	}
	path = filepath.Clean(path)
	var parents []string
	for d := filepath.Dir(path); d != "/" && d != "."; d = filepath.Dir(d) {
		parents = append(parents, d)
	}
	for i := len(parents) - 1; i >= 0; i-- {
		d := parents[i]
		if b.made[d] || d == "/tmp" || underSystemTree(d) {
			continue
		}
		b.made[d] = true
		b.a = append(b.a, "--perms", "0755", "--dir", d)
	}
	b.a = append(b.a, flag, path, path)
}

// premounted are the trees the profile mounts before any bind: the system trees, /proc and
// /dev.
var premounted = append(append([]string(nil), systemTrees...), "/proc", "/dev")

// underSystemTree reports whether d is a system tree or inside one (or /proc or /dev): those
// exist in the sandbox already, with their own modes.
func underSystemTree(d string) bool {
	for _, t := range premounted {
		if isUnder(d, t) {
			return true
		}
	}
	return false
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
// Mounts are the host's trees the sandbox shows the runtime: the system trees, the runtime
// binary, the bundle (and the host's bytecode cache), the plugins' staged copies, the data folder, the workspace when bound,
// and the grants. A host path under none of them is absent inside (masks aside; /proc, /dev
// and /tmp are the sandbox's own).
func (p Profile) Mounts() []string {
	out := append([]string(nil), systemTrees...)
	for _, m := range append([]string{p.Runtime, p.Bundle, p.Bytecode, p.Plugins, p.Data, p.Workspace}, p.Grants...) {
		if m != "" {
			out = append(out, m)
		}
	}
	return out
}

// Covers reports whether path is inside one of mounts.
func Covers(mounts []string, path string) bool {
	for _, m := range mounts {
		if isUnder(path, m) {
			return true
		}
	}
	return false
}

// SecretPaths are the system files the sandbox masks even inside the trees it binds: the
// password and sudo files, TLS private keys, and the SSH host keys present on this machine.
// Nothing inside them may be granted (core/grants).
func SecretPaths() []string { return append(append([]string(nil), systemSecrets...), hostKeys()...) }

func hostKeys() []string {
	m, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
	return m
}

// isUnder reports whether path is root or inside it.
func isUnder(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}
