package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
	"github.com/cwx-dev/cwx/shared"
)

// SandboxReport says whether bubblewrap is present and can run a command.
type SandboxReport struct {
	Name    string `json:"name"` // "bubblewrap"
	Path    string `json:"path,omitempty"`
	Present bool   `json:"present"`
	Works   bool   `json:"works"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"` // the exact fix when it does not work
}

// CheckSandbox is the probe the plugin tier relies on, as `cwx doctor` reports it:
// bubblewrap resolved like the host does (configured path, else PATH outside workDir) and
// the runtime's --version run inside the plugin tier's profile (ProbeSandbox), as user when
// not nil. Without a runtime it runs `bwrap --ro-bind / / true` instead.
func CheckSandbox(ctx context.Context, configured, pathEnv, workDir, runtimePath string, user *SandboxUser) SandboxReport {
	rep := SandboxReport{Name: "bubblewrap"}
	bw, err := ResolveBwrap(configured, pathEnv, workDir)
	if err != nil {
		rep.Detail, rep.Fix = err.Error(), BwrapMissingFix
		return rep
	}
	if runtimePath == "" {
		r := CheckBubblewrap(ctx, filepath.Dir(bw), DefaultSandboxProbeTimeout)
		if !r.Works {
			r.Fix = SandboxFix(r.Detail)
		}
		return r
	}
	rep.Path, rep.Present = bw, true
	if why := ProbeSandbox(ctx, Profile{Bwrap: bw, Runtime: runtimePath, User: user}, DefaultSandboxProbeTimeout); why != "" {
		rep.Detail = why
		rep.Fix = SandboxFix(why)
		return rep
	}
	rep.Works = true
	rep.Detail = "`" + runtimePath + " --version` ran inside the plugin tier's profile"
	return rep
}

// bwrapFallback is where bubblewrap lives when PATH does not name it (a variable for tests).
var bwrapFallback = "/usr/bin/bwrap"

// CheckBubblewrap looks for bwrap on pathEnv (then /usr/bin/bwrap) and runs
// `bwrap --ro-bind / / true` with an empty environment under timeout.
func CheckBubblewrap(ctx context.Context, pathEnv string, timeout time.Duration) SandboxReport {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	rep := SandboxReport{Name: "bubblewrap"}
	path := lookPathIn("bwrap", pathEnv)
	if path == "" && isExecutable(bwrapFallback) {
		path = bwrapFallback
	}
	if path == "" {
		rep.Detail = "bwrap not found (install bubblewrap to sandbox the plugin tier)"
		return rep
	}
	rep.Path, rep.Present = path, true
	res := runProbe(ctx, timeout, path, "--ro-bind", "/", "/", "true")
	if res.err != nil {
		rep.Detail = res.describe("`bwrap --ro-bind / / true`", timeout)
		return rep
	}
	rep.Works = true
	rep.Detail = "`bwrap --ro-bind / / true` succeeded"
	return rep
}

// lookPathIn finds an executable named name in the absolute entries of pathEnv.
func lookPathIn(name, pathEnv string) string {
	for _, dir := range splitAbs(pathEnv) {
		p := dir + "/" + name
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

func splitAbs(pathEnv string) []string {
	var out []string
	for _, d := range filepath.SplitList(pathEnv) {
		if len(d) > 0 && d[0] == '/' {
			out = append(out, d)
		}
	}
	return out
}

// Unsandboxed is what every review, plugin show and host status says when the plugin tier
// runs without the sandbox (ARCHITECTURE.md, “Sandbox”).
const Unsandboxed = "unsandboxed: plugins run with your user permissions"

// DefaultSandboxProbeTimeout bounds the sandbox probe.
const DefaultSandboxProbeTimeout = 10 * time.Second

// ResolveBwrap finds bubblewrap like a runtime: a configured path is the only candidate;
// otherwise the absolute PATH entries outside workDir are searched, never the working
// directory.
func ResolveBwrap(configured, pathEnv, workDir string) (string, error) {
	if configured != "" {
		if !isExecutable(configured) {
			return "", fmt.Errorf("[extension_host] bwrap = %q is not an executable file", configured)
		}
		return configured, nil
	}
	for _, dir := range splitAbs(pathEnv) {
		if workDir != "" && workDir != "/" && isUnder(filepath.Clean(dir), workDir) {
			continue
		}
		if p := filepath.Join(dir, "bwrap"); isExecutable(p) {
			return p, nil
		}
	}
	return "", errors.New("bwrap is not on PATH")
}

// sandboxProbes caches ProbeSandbox per bubblewrap and runtime binary and identity: once
// per process.
var sandboxProbes = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// ProbeSandbox runs `<runtime> --version` inside the plugin tier's profile (its namespaces,
// capabilities, system mounts, /proc, seccomp filter and, when p.User is set, the drop to
// it), once per process for each p.Bwrap, p.Runtime and p.User, and returns "" when it
// worked or why it did not. Only those three fields of p are read.
func ProbeSandbox(ctx context.Context, p Profile, timeout time.Duration) string {
	p = Profile{Bwrap: p.Bwrap, Runtime: p.Runtime, User: p.User}
	key := strings.Join(p.probeKey(), "\x00")
	sandboxProbes.Lock()
	defer sandboxProbes.Unlock()
	if why, ok := sandboxProbes.m[key]; ok {
		return why
	}
	if timeout <= 0 {
		timeout = DefaultSandboxProbeTimeout
	}
	why := runSandboxProbe(ctx, p, timeout)
	if ctx.Err() == nil {
		sandboxProbes.m[key] = why
	}
	return why
}

// probeKey is what a probe's result depends on: the profile's arguments (its binaries, the
// identity, the kernel surface of this machine) and the filter.
func (p Profile) probeKey() []string {
	key := append(p.args(false), p.command([]string{p.Runtime, "--version"})...)
	if f, err := Filter(); err == nil {
		key = append(key, fmt.Sprintf("%x", f.Bytes()))
	}
	return key
}

// runSandboxProbe runs the probe: bubblewrap with the filter on SandboxSeccompFD and, for the
// privilege drop inside, go-plugin's cookie (the shim's dispatch requires it).
func runSandboxProbe(ctx context.Context, p Profile, timeout time.Duration) string {
	what := "`bwrap … " + p.Runtime + " --version`"
	f, err := Filter()
	if err != nil {
		return what + " cannot run: " + err.Error()
	}
	r, w, err := os.Pipe()
	if err != nil {
		return what + " cannot run: " + err.Error()
	}
	defer r.Close()
	_, err = w.Write(f.Bytes()) // at most 32 KiB: within a pipe's buffer
	_ = w.Close()
	if err != nil {
		return what + " cannot run: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := append(p.args(false), p.command([]string{p.Runtime, "--version"})...)
	cmd, stdout, stderr := probeCommand(ctx, args[0], args[1:]...)
	cmd.ExtraFiles = make([]*os.File, SandboxSeccompFD-2)
	cmd.ExtraFiles[SandboxSeccompFD-3] = r
	if p.User != nil {
		cmd.Env = []string{shared.CookieKey + "=" + shared.CookieValue}
	}
	err = cmd.Run()
	res := probeResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.timedOut = true
	}
	if res.err != nil {
		return res.describe(what, timeout)
	}
	return ""
}

// ProbeSandboxCached is ProbeSandbox that first looks in cache for an earlier process's
// success under the same key: the identities of bubblewrap, the runtime and (for a
// privilege drop) the shim, the probe's arguments and filter (the profile), and the kernel
// settings that decide whether user namespaces work ([sandboxKernelSettings]). A success is
// stored; a failure never is, so it is probed again next time. A nil cache is
// ProbeSandbox. A cached success decides only that the plugin tier is launched under
// bubblewrap: a sandbox that stopped working fails that launch.
func ProbeSandboxCached(ctx context.Context, cache ProbeCache, p Profile, timeout time.Duration) string {
	if cache == nil {
		return ProbeSandbox(ctx, p, timeout)
	}
	p = Profile{Bwrap: p.Bwrap, Runtime: p.Runtime, User: p.User}
	bins := []string{p.Bwrap, p.Runtime}
	if p.User != nil {
		bins = append(bins, p.User.Shim)
	}
	key, ok := probecache.Keyed(SandboxProbeKind, bins, strings.Join(p.probeKey(), "\x00"), sandboxKernelSettings())
	if ok {
		if _, hit := cache.Get(key); hit {
			return ""
		}
	}
	why := ProbeSandbox(ctx, p, timeout)
	if ok && why == "" && ctx.Err() == nil {
		cache.Put(key, "works")
	}
	return why
}

// SandboxProbeKind is the probe cache's kind for ProbeSandboxCached's entries.
const SandboxProbeKind = "sandbox"

// sandboxSettings are the kernel settings that decide whether an unprivileged user may
// create the namespaces bubblewrap needs (SandboxFix names them).
var sandboxSettings = []string{
	"/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/user/max_user_namespaces",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
}

// sandboxKernelSettings is the current value of each of sandboxSettings ("-" when absent).
func sandboxKernelSettings() string {
	var b strings.Builder
	for _, p := range sandboxSettings {
		v := "-"
		if raw, err := os.ReadFile(p); err == nil {
			v = strings.TrimSpace(string(raw))
		}
		fmt.Fprintf(&b, "%s=%s;", p, v)
	}
	return b.String()
}

// SandboxFix is the exact fix for a bubblewrap failure, judged by what it printed.
func SandboxFix(stderr string) string {
	switch s := strings.ToLower(stderr); {
	case strings.Contains(s, "namespace") || strings.Contains(s, "uid map") || strings.Contains(s, "operation not permitted") || strings.Contains(s, "permission denied"):
		return "user namespaces are disabled: run `sysctl -w kernel.unprivileged_userns_clone=1` (Debian) or " +
			"`sysctl -w user.max_user_namespaces=15000`; on Ubuntu 23.10 and later AppArmor restricts them: " +
			"`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or give /usr/bin/bwrap an AppArmor profile with `userns,`"
	default:
		return "check that bubblewrap runs: `bwrap --ro-bind / / true`"
	}
}

// BwrapMissingFix is the fix when bubblewrap is not found.
const BwrapMissingFix = "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`) or set [extension_host] bwrap to its path"
