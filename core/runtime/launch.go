package runtime

import (
	"os"
	"strconv"
	"strings"
)

// DefaultMemoryLimitBytes is the RLIMIT_DATA cap a runtime gets when none is configured.
const DefaultMemoryLimitBytes uint64 = 1 << 30

// LaunchPlan is everything the shim needs to start the runtime. Dir is left to the caller
// (the supervisor knows the tier's data directory).
type LaunchPlan struct {
	Argv             []string `json:"argv"` // Argv[0] is the runtime binary
	Env              []string `json:"env"`  // complete environment, KEY=VALUE
	Dir              string   `json:"dir,omitempty"`
	MemoryLimitBytes uint64   `json:"memory_limit_bytes"`
	// Sandbox names the profile the runtime runs in ("bubblewrap"), "" when unsandboxed.
	Sandbox string `json:"sandbox,omitempty"`
	// Seccomp is the filter bubblewrap reads on SandboxSeccompFD (struct sock_filter
	// entries), nil when unsandboxed.
	Seccomp []byte `json:"seccomp,omitempty"`
}

// nodeHeapFlag caps Node's old-generation heap (core/supervisor doc.go, the numbers).
const nodeHeapFlag = "--max-old-space-size=256"

// nodeFixedFlags go to every Node host (core/runtime doc.go, “Runtimes”).
var nodeFixedFlags = []string{nodeHeapFlag, "--disable-proto=throw", "--no-addons", "--zero-fill-buffers"}

// bunFlags keep Bun from installing packages, reading .env or bunfig.toml from the working
// directory (the host's writable data dir), and loading addons.
var bunFlags = []string{"--no-install", "--no-env-file", "--config=/dev/null", "--no-addons"}

// allowedEnv are the user's variables a host keeps; everything else is dropped.
var allowedEnv = map[string]bool{
	"HOME": true, "USER": true, "LOGNAME": true, "PATH": true, "SHELL": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true, "TERM": true,
	"CWX_TEST_RUN_MARKER": true, // lets the test suite's /proc scan see runtimes it started
}

// allowedEnvPrefixes keep locale categories (LC_ALL, LC_CTYPE, ...).
var allowedEnvPrefixes = []string{"LC_"}

// fixedEnv overrides anything inherited, per runtime.
func fixedEnv(kind Kind) []string {
	env := []string{"NODE_OPTIONS=", "CWX_HOST_PROCESS_GROUP=1"}
	if kind == KindBun {
		env = append(env, "BUN_OPTIONS=", "BUN_BE_BUN=0", "BUN_JSC_useShadowRealm=0")
	}
	return env
}

// Args returns the runtime's flags for a host script, without the binary, the script or
// the tier.
func (r Runtime) Args() []string {
	if r.Kind == KindBun {
		return append([]string(nil), bunFlags...)
	}
	return append(append([]string(nil), nodeFixedFlags...), r.NodeFlags...)
}

// LaunchPlan builds the plan for running bundlePath on tier: argv ends with the bundle path
// and then --tier=<tier>; the environment is the allow-listed part of this process's
// environment, then extraEnv, then the fixed runtime variables (later entries win).
// memLimitBytes 0 means DefaultMemoryLimitBytes.
func (r Runtime) LaunchPlan(bundlePath, tier string, memLimitBytes uint64, extraEnv []string) LaunchPlan {
	return r.launchPlan(os.Environ(), bundlePath, tier, memLimitBytes, extraEnv)
}

func (r Runtime) launchPlan(environ []string, bundlePath, tier string, memLimitBytes uint64, extraEnv []string) LaunchPlan {
	if memLimitBytes == 0 {
		memLimitBytes = DefaultMemoryLimitBytes
	}
	argv := append([]string{r.Path}, r.Args()...)
	argv = append(argv, bundlePath, "--tier="+tier)
	var env []string
	for _, kv := range environ {
		if k, _, ok := strings.Cut(kv, "="); ok && envAllowed(k) {
			env = append(env, kv)
		}
	}
	env = append(env, extraEnv...)
	env = append(env, fixedEnv(r.Kind)...)
	return LaunchPlan{Argv: argv, Env: dedupeEnv(env), MemoryLimitBytes: memLimitBytes}
}

func envAllowed(k string) bool {
	if allowedEnv[k] {
		return true
	}
	for _, p := range allowedEnvPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// dedupeEnv keeps the last value of each key, at the position of its first occurrence, and
// drops entries without "=".
func dedupeEnv(env []string) []string {
	idx := map[string]int{}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if i, seen := idx[k]; seen {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// SnapshotFD is the runtime's descriptor holding a verified Node startup snapshot of the host
// (ARCHITECTURE.md, “Host snapshot”): the core opens and verifies the file, the shim passes it
// on, and Node reads it as --snapshot-blob /proc/self/fd/7, so what Node reads is what was
// verified, whoever renames the file meanwhile. /proc inside the sandbox is the runtime's own.
const SnapshotFD = 7

// SnapshotBuildFlags are the flags a startup snapshot is built with: the heap cap and Node's
// feature switches the binary accepts (r.NodeFlags), whose effect a snapshot keeps. The heap cap
// is there for the code cache of Node's own modules that the snapshot carries: V8 accepts a
// code cache only under the flags it was made with, and --max-old-space-size is one it
// compares, so a snapshot built without it makes every built-in module loaded after the start
// (and the watchdog Worker's whole boot) compile from source, about three times slower. The
// run's own flag sets the cap; the build's does not persist. The security flags are not among
// them: Node crashes building with --disable-proto=throw, and a build-time --no-addons would
// persist; they are passed at run time, where they hold (the host's lockdown checks).
func (r Runtime) SnapshotBuildFlags() []string {
	return append([]string{nodeHeapFlag}, r.NodeFlags...)
}

// WithSnapshot returns the plan starting Node from the snapshot on SnapshotFD: --snapshot-blob
// goes after the runtime's flags, before the bundle path, which stays process.argv[1]. Call it
// before Wrap.
func (p LaunchPlan) WithSnapshot() LaunchPlan {
	argv := p.Argv
	if len(argv) < 3 {
		return p
	}
	at := len(argv) - 2 // the bundle path, then --tier=<tier>
	out := make([]string, 0, len(argv)+2)
	out = append(out, argv[:at]...)
	out = append(out, "--snapshot-blob", "/proc/self/fd/"+strconv.Itoa(SnapshotFD))
	p.Argv = append(out, argv[at:]...)
	return p
}
