package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/probecache"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/snapshot"
)

// DoctorReport is the --json output of `cwx doctor`.
type DoctorReport struct {
	Home       string `json:"cwx_home"`    // $CWX_HOME (default ~/.cwx)
	ConfigFile string `json:"config_file"` // $CWX_HOME/config.toml (may not exist)
	Requested  string `json:"requested"`   // [extension_host] runtime: node, bun or auto
	Usable     bool   `json:"usable"`      // a runtime was found; false means exit 5
	// Runtime is the chosen runtime, null when none is usable.
	Runtime *jsruntime.Runtime `json:"runtime"`
	// LaunchFlags are the flags the host is started with on the chosen runtime.
	LaunchFlags []string `json:"launch_flags,omitempty"`
	// Fallback says why auto did not take Bun.
	Fallback string `json:"fallback,omitempty"`
	// Rejected lists every candidate not used and why, in the order tried.
	Rejected []jsruntime.Candidate `json:"rejected"`
	// Fix is what to do when no runtime is usable.
	Fix string `json:"fix,omitempty"`
	// MemoryCap is whether the kernel enforces the configured cap on the chosen runtime;
	// null when there is no runtime to test.
	MemoryCap *jsruntime.MemoryCapReport `json:"memory_cap"`
	Sandbox   jsruntime.SandboxReport    `json:"sandbox"`
	// Kernel is what the sandbox leaves the runtime of the kernel: the uid it runs as, /proc
	// and the seccomp filter (ARCHITECTURE.md, “Sandbox”).
	Kernel *DoctorKernel `json:"kernel,omitempty"`
	// SandboxMode is [extension_host] sandbox; PluginTier says what that means for the
	// plugin tier on this machine (ARCHITECTURE.md, “Sandbox”).
	SandboxMode string `json:"sandbox_mode"`
	PluginTier  string `json:"plugin_tier"`
	// Isolation is [extension_host] isolation (shared or process); Exceptions lists the plugins
	// config.toml gives a host of their own against that default, or that keep the shared host
	// when the default is process (ARCHITECTURE.md, “Per-plugin hosts”).
	Isolation  string       `json:"isolation"`
	Exceptions []string     `json:"isolation_exceptions,omitempty"`
	Bundle     DoctorBundle `json:"bundle"`
	// Snapshot is the Node startup snapshot of the host (ARCHITECTURE.md, “Host snapshot”).
	Snapshot DoctorSnapshot `json:"snapshot"`
	// ProbeCache is where other commands keep probe successes across processes
	// ($CWX_HOME/cache/probes.json); doctor runs every probe afresh and never reads it. A
	// sandbox probe that fails here removes the cached sandbox successes.
	ProbeCache string `json:"probe_cache"`
	// MCPServers is each [mcp.servers.<name>] of config.toml: its command and whether it is
	// found (doctor starts none).
	MCPServers []DoctorMCP `json:"mcp_servers,omitempty"`
}

// DoctorMCP is one MCP server in doctor's report.
type DoctorMCP struct {
	Name    string `json:"name"`
	Command string `json:"command,omitempty"`
	// URL is a remote server's endpoint, its query shown as "…".
	URL     string `json:"url,omitempty"`
	Path    string `json:"path,omitempty"` // where the command was found
	Problem string `json:"problem,omitempty"`
}

// DoctorKernel is the sandbox's kernel surface on this machine.
type DoctorKernel struct {
	UID      int      `json:"uid"`      // the uid the kernel sees for the sandboxed runtime
	Dropped  bool     `json:"dropped"`  // cwx runs as root and the runtime drops to UID
	ReadOnly []string `json:"readonly"` // /proc paths bound read-only
	Masked   []string `json:"masked"`   // /proc paths hidden
	Filter   string   `json:"filter"`   // the seccomp filter in one line, or why there is none
}

// doctorKernel describes the kernel surface the plugin tier's sandbox gives its runtime.
func doctorKernel(host config.ExtensionHost) *DoctorKernel {
	k := &DoctorKernel{UID: os.Geteuid()}
	if u, err := core.SandboxUserFor(host, ""); err == nil && u != nil {
		k.UID, k.Dropped = int(u.UID), true
	}
	k.ReadOnly, k.Masked = jsruntime.KernelSurface()
	if f, err := jsruntime.Filter(); err != nil {
		k.Filter = "none: " + err.Error()
	} else {
		k.Filter = f.Summary()
	}
	return k
}

// runtimeOptions asks for the runtime of kind ("" is Node, the default) as this process
// finds it: the paths of home's config, then PATH outside the working folder.
func runtimeOptions(home string, host config.ExtensionHost, kind string) jsruntime.Options {
	wd, _ := os.Getwd()
	userHome, _ := os.UserHomeDir()
	return jsruntime.Options{Kind: jsruntime.Kind(kind), NodePath: host.Node, BunPath: host.Bun,
		PathEnv: os.Getenv("PATH"), WorkDir: wd, HomeDir: userHome, ConfigFile: config.Path(home)}
}

// pluginTierContainment is doctor's one line on the plugin tier.
func pluginTierContainment(mode string, works bool) string {
	switch {
	case mode != config.SandboxOff && works:
		return "sandboxed (bubblewrap)"
	case mode == config.SandboxRequired:
		return "refuses to start: sandbox = \"required\" and the sandbox does not work"
	default:
		return jsruntime.Unsandboxed
	}
}

// DoctorSnapshot says what the next host starts from besides the bundle (ARCHITECTURE.md,
// “Host snapshot”).
type DoctorSnapshot struct {
	Mode string `json:"mode"` // [extension_host] snapshot: auto or off
	// Kind is what the chosen runtime starts from: "snapshot" (Node's startup snapshot) or
	// "bytecode" (Bun's bytecode cache); empty when neither applies.
	Kind string `json:"kind,omitempty"`
	// InUse is true when one is built for the chosen runtime and verifies: the next host
	// starts from it.
	InUse bool   `json:"in_use"`
	Path  string `json:"path,omitempty"`
	Bytes int64  `json:"bytes,omitempty"`
	// VerifyMS is what its sha256 check took here, the cost of every start.
	VerifyMS float64 `json:"verify_ms,omitempty"`
	// Why says why none is used, or what the next start does about it.
	Why string `json:"why,omitempty"`
}

// doctorSnapshot reports whether the next host of rt starts from a snapshot (Node) or a
// bytecode cache (Bun): doctor verifies one already built and never builds one.
func doctorSnapshot(home string, host config.ExtensionHost, rt *jsruntime.Runtime) DoctorSnapshot {
	d := DoctorSnapshot{Mode: host.Snapshot}
	if rt == nil {
		d.Why = "no runtime"
		return d
	}
	o, why := snapshot.For(home, host, *rt, bundle.EmbeddedSHA256())
	if why != "" {
		d.Why = why
		return d
	}
	var err error
	if o.Kind == jsruntime.KindBun {
		d.Kind = "bytecode"
		var c *snapshot.Bytecode
		if c, err = snapshot.FindBytecode(o); err != nil {
			d.Why = "not built yet: the first Bun host start builds it (once, a fraction of a second)"
			return d
		}
		d.Path, d.Bytes = c.Dir, c.ScriptSize+c.CodeSize
		var took time.Duration
		took, err = c.Verify()
		d.VerifyMS = float64(took.Microseconds()) / 1000
	} else {
		d.Kind = "snapshot"
		var b *snapshot.Blob
		if b, err = snapshot.Find(o); err != nil {
			d.Why = "not built yet: the first Node host start builds it (once, about a second)"
			return d
		}
		d.Path, d.Bytes = b.Path, b.Size
		var f *os.File
		if f, err = b.Open(); err == nil {
			var took time.Duration
			took, err = b.Verify(f)
			f.Close()
			d.VerifyMS = float64(took.Microseconds()) / 1000
		}
	}
	if err != nil {
		d.Why = fmt.Sprintf("%v: never used; the next host start builds it again", err)
		return d
	}
	d.InUse = true
	return d
}

// DoctorBundle describes the extension-host bundle embedded in this build.
type DoctorBundle struct {
	SHA256 string `json:"sha256"` // its digest, the one host/hello must report
	Dir    string `json:"dir"`    // where it is materialized: $CWX_HOME/extension-host/<sha256>
	// Materialized is true when Dir holds an intact read-only copy. It is written the first
	// time a tier starts; doctor never writes it.
	Materialized bool `json:"materialized"`
	// Problem says what is wrong with a copy that exists but is not intact (the next start
	// rewrites it).
	Problem string `json:"problem,omitempty"`
}

// doctorChecks are the slow, machine-dependent probes; tests replace them with fakes.
var doctorChecks = struct {
	memoryCap func(ctx context.Context, rt jsruntime.Runtime, limitBytes uint64) jsruntime.MemoryCapReport
	sandbox   func(ctx context.Context, pathEnv string, host config.ExtensionHost, runtimePath string) jsruntime.SandboxReport
	kernel    func(host config.ExtensionHost) *DoctorKernel
}{
	memoryCap: func(ctx context.Context, rt jsruntime.Runtime, limit uint64) jsruntime.MemoryCapReport {
		return jsruntime.CheckMemoryCap(ctx, rt, limit, 10*time.Second)
	},
	sandbox: func(ctx context.Context, pathEnv string, host config.ExtensionHost, runtimePath string) jsruntime.SandboxReport {
		wd, _ := os.Getwd()
		user, err := core.SandboxUserFor(host, "")
		if err != nil {
			return jsruntime.SandboxReport{Name: "bubblewrap", Detail: err.Error()}
		}
		return jsruntime.CheckSandbox(ctx, host.Bwrap, pathEnv, wd, runtimePath, user)
	},
	kernel: doctorKernel,
}

func init() {
	register(func() *cobra.Command {
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "doctor",
			Short: "Check the JavaScript runtime, its memory cap, the sandbox and the host bundle",
			Long: "doctor resolves the runtime the extension host would use (and says why every other\n" +
				"candidate was rejected), checks that the kernel enforces the memory cap on it and that\n" +
				"bubblewrap works, and prints CWX_HOME and the embedded bundle's digest. It exits 5,\n" +
				"printing the fix, when no usable runtime is found.",
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				rep, noRuntime, err := runDoctor(cmd.Context())
				if err != nil {
					return err
				}
				if err := writeReport(cmd.OutOrStdout(), asJSON, rep, printDoctor); err != nil {
					return err
				}
				if noRuntime != nil {
					return &ExitError{Code: ExitUnavailable, Err: noRuntime}
				}
				return nil
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object (DoctorReport)")
		return cmd
	})
}

// runDoctor gathers the report. noRuntime is set (and the report still complete) when no
// runtime is usable; err is for failures that stop the report itself.
func runDoctor(ctx context.Context) (DoctorReport, *jsruntime.NoRuntimeError, error) {
	home, err := config.Home()
	if err != nil {
		return DoctorReport{}, nil, &ExitError{Code: ExitInternal, Err: err}
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		code := ExitUsage
		if errors.Is(err, config.ErrInvalid) {
			code = ExitInvalid
		}
		return DoctorReport{}, nil, exitf(code, "%w", err)
	}
	host := cfg.ExtensionHost
	rep := DoctorReport{Home: home, ConfigFile: config.Path(home), Requested: host.Runtime}
	pathEnv := os.Getenv("PATH")
	res, err := jsruntime.Resolve(ctx, runtimeOptions(home, host, host.Runtime))
	rep.Rejected, rep.Fallback = res.Rejected, res.Fallback
	if rep.Rejected == nil {
		rep.Rejected = []jsruntime.Candidate{}
	}
	var noRuntime *jsruntime.NoRuntimeError
	switch {
	case errors.As(err, &noRuntime):
		rep.Fix = noRuntime.Fix
	case err != nil:
		return DoctorReport{}, nil, &ExitError{Code: ExitInternal, Err: err}
	default:
		rt := res.Chosen
		rep.Usable, rep.Runtime, rep.LaunchFlags = true, &rt, rt.Args()
		mc := doctorChecks.memoryCap(ctx, rt, host.MemoryLimitBytes())
		rep.MemoryCap = &mc
	}
	rtPath := ""
	if rep.Runtime != nil {
		rtPath = rep.Runtime.Path
	}
	rep.Sandbox = doctorChecks.sandbox(ctx, pathEnv, host, rtPath)
	if rep.Sandbox.Present && !rep.Sandbox.Works {
		// an earlier success must not outlive this failure: the next command probes again
		probecache.Open(home, probecache.Options{}).Forget(jsruntime.SandboxProbeKind)
	}
	rep.SandboxMode = host.Sandbox
	rep.PluginTier = pluginTierContainment(host.Sandbox, rep.Sandbox.Works)
	rep.Isolation = host.Isolation
	for _, id := range cfg.PluginIDs() {
		if p := cfg.Plugin(id); p.Isolation != "" && p.Isolation != host.Isolation {
			rep.Exceptions = append(rep.Exceptions, id)
		}
	}
	if host.Sandbox != config.SandboxOff && rep.Sandbox.Works {
		rep.Kernel = doctorChecks.kernel(host)
	}
	rep.Bundle = doctorBundle(home)
	rep.Snapshot = doctorSnapshot(home, host, rep.Runtime)
	rep.ProbeCache = probecache.Path(home)
	for _, n := range cfg.MCPNames() {
		s := cfg.MCP[n]
		d := DoctorMCP{Name: n, Command: s.Command}
		if s.Remote() {
			d.URL = egress.RedactQuery(s.URL)
			var bad []string
			for _, h := range s.HeaderNames() {
				if _, err := config.ExpandEnv(s.Headers[h]); err != nil {
					bad = append(bad, fmt.Sprintf("header %s: %v", h, err))
				}
			}
			d.Problem = strings.Join(bad, "; ")
			rep.MCPServers = append(rep.MCPServers, d)
			continue
		}
		if p, err := exec.LookPath(s.Command); err != nil {
			d.Problem = fmt.Sprintf("not found (%v); install it or fix [mcp.servers.%s] command", err, n)
		} else {
			d.Path = p
		}
		if s.Cwd != "" {
			if fi, err := os.Stat(s.Cwd); err != nil || !fi.IsDir() {
				d.Problem = strings.TrimPrefix(d.Problem+"; ", "; ") + fmt.Sprintf("cwd %s is not a folder", s.Cwd)
			}
		}
		rep.MCPServers = append(rep.MCPServers, d)
	}
	return rep, noRuntime, nil
}

func doctorBundle(home string) DoctorBundle {
	b := bundle.Embedded()
	d := DoctorBundle{SHA256: bundle.EmbeddedSHA256()}
	d.Dir = filepath.Join(home, "extension-host", d.SHA256)
	_, err := bundle.Verify(home, b)
	switch {
	case err == nil:
		d.Materialized = true
	case !errors.Is(err, os.ErrNotExist):
		d.Problem = err.Error()
	}
	return d
}

func printDoctor(w io.Writer, r DoctorReport) {
	row := func(k, format string, args ...any) { printf(w, "%-12s %s\n", k, fmt.Sprintf(format, args...)) }
	row("CWX_HOME", "%s", r.Home)
	row("config", "%s", r.ConfigFile)
	row("requested", "%s", r.Requested)
	if r.Runtime != nil {
		row("runtime", "%s %s at %s (from %s)", r.Runtime.Kind, r.Runtime.Version, r.Runtime.Path, r.Runtime.Source)
		row("flags", "%s", strings.Join(r.LaunchFlags, " "))
	} else {
		row("runtime", "none usable")
	}
	if r.Fallback != "" {
		row("fallback", "%s", r.Fallback)
	}
	for i, c := range r.Rejected {
		k := ""
		if i == 0 {
			k = "rejected"
		}
		row(k, "%s (%s): %s", c.Path, c.Source, c.Reason)
	}
	if mc := r.MemoryCap; mc != nil {
		state := "NOT enforced"
		if mc.Enforced {
			state = "enforced"
		}
		row("memory cap", "%s %d MiB %s: %s", mc.Mechanism, mc.LimitBytes>>20, state, mc.Detail)
	} else {
		row("memory cap", "not checked (no runtime)")
	}
	sb := r.Sandbox
	switch {
	case sb.Works:
		row("sandbox", "%s works (%s)", sb.Name, sb.Path)
	case sb.Present:
		row("sandbox", "%s present but does not work: %s", sb.Name, sb.Detail)
	default:
		row("sandbox", "%s absent: %s", sb.Name, sb.Detail)
	}
	if sb.Fix != "" {
		row("", "fix: %s", sb.Fix)
	}
	if r.PluginTier != "" {
		row("plugin tier", "%s (sandbox = %q)", r.PluginTier, r.SandboxMode)
	}
	switch {
	case r.Isolation == config.IsolationProcess:
		row("isolation", "every plugin in a host of its own (isolation = \"process\")%s", exceptNote(r.Exceptions, "shared host"))
	case r.Isolation != "":
		row("isolation", "plugins share the plugin tier's host (isolation = \"shared\")%s", exceptNote(r.Exceptions, "host of its own"))
	}
	if k := r.Kernel; k != nil {
		if k.Dropped {
			row("kernel uid", "%d (sandbox_uid: cwx runs as root, the runtime drops to it)", k.UID)
		} else {
			row("kernel uid", "%d (yours)", k.UID)
		}
		row("read-only", "%s", strings.Join(k.ReadOnly, " "))
		row("masked", "%s", strings.Join(k.Masked, " "))
		row("seccomp", "%s", k.Filter)
	}
	switch bd := r.Bundle; {
	case bd.Materialized:
		row("bundle", "sha256:%s (intact at %s)", bd.SHA256, bd.Dir)
	case bd.Problem != "":
		row("bundle", "sha256:%s (%s; the next start rewrites it)", bd.SHA256, bd.Problem)
	default:
		row("bundle", "sha256:%s (not materialized yet; the first tier start writes %s)", bd.SHA256, bd.Dir)
	}
	if sn := r.Snapshot; sn.InUse {
		row("snapshot", "in use: %s %s (%d bytes, sha256 verified in %.1f ms; snapshot = %q)", sn.Kind, sn.Path, sn.Bytes, sn.VerifyMS, sn.Mode)
	} else if sn.Mode != "" {
		row("snapshot", "not in use: %s (snapshot = %q)", sn.Why, sn.Mode)
	}
	for _, s := range r.MCPServers {
		if s.URL != "" {
			if s.Problem != "" {
				row("mcp "+s.Name, "%s: %s", s.URL, s.Problem)
			} else {
				row("mcp "+s.Name, "%s (reached from the core; not contacted by doctor)", s.URL)
			}
			continue
		}
		if s.Problem != "" {
			row("mcp "+s.Name, "%s: %s", s.Command, s.Problem)
		} else {
			row("mcp "+s.Name, "%s (%s; unsandboxed, runs with your rights)", s.Command, s.Path)
		}
	}
	if r.ProbeCache != "" {
		row("probes", "all run afresh (the probe cache %s is not read by doctor)", r.ProbeCache)
	}
	if r.Fix != "" {
		row("fix", "%s", r.Fix)
	}
}

// exceptNote names the plugins whose isolation differs from the default.
func exceptNote(ids []string, what string) string {
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s: %s", what, strings.Join(ids, ", "))
}
