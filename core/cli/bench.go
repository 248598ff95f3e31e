package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
	"github.com/cwx-dev/cwx/core/config"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
)

func init() { register(benchCmd) }

type benchFlags struct {
	runtime  string
	asJSON   bool
	quick    bool
	plugins  int
	only     string
	isolated int
	mcp      bool
	cpuProf  string
}

func benchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench [--runtime node|bun] [--json] [--quick]",
		Short: "Measure start, calls, big results, memory and restart on this machine, against a direct pipe and a bare runtime",
		Long: "Runs its own fixture plugin in a throwaway CWX_HOME (your home is only read for the\n" +
			"runtime's path) and prints one table: tier start to Ready, activation, a whole\n" +
			"`cwx tool call` process beside a bare `node -e 0` (alternated), 1 KiB calls through\n" +
			"the core and over a direct pipe to the same host, alternated with 1 KiB through\n" +
			"go-plugin's gRPC stream to an echo and over a bare pipe to an echo, the same call\n" +
			"through `cwx serve --mcp` against the core's, a 1 MiB result against a bare runtime\n" +
			"writing the same bytes, calls/s at 1, 16 and 64 callers with the CPU per call of the\n" +
			"core, the shim and the runtime, RSS, PSS and private memory, kill -9 to the next\n" +
			"answer, and a 1 MiB fetch through the core's fetch proxy against a bare runtime's\n" +
			"(with bubblewrap). The keys of --json are listed in BENCHMARKS.md.\n" +
			"--mcp measures instead a 1 KiB and a 1 MiB tool result of a stdio and of a Streamable\n" +
			"HTTP test MCP server through the core, against the Go SDK's client with no gate\n" +
			"speaking to the same server (alternated).\n" +
			"--quick runs fewer iterations (well under two minutes). Figures depend on the load.",
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return runBench(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.runtime, "runtime", "", "node or bun (default: [extension_host] runtime of your config)")
	fl.BoolVar(&f.asJSON, "json", false, "print a JSON object")
	fl.BoolVar(&f.quick, "quick", false, "fewer iterations")
	fl.IntVar(&f.plugins, "plugins", 1, "enabled fixture plugins (1 to 8): copies of the fixture, each with a tool of its own, that a one-shot call does not use")
	fl.StringVar(&f.only, "only", "", "run only this step: ready, oneshot, live, direct, serve or fetch (oneshot still warms the plugin catalog with one activation first)")
	fl.BoolVar(&f.mcp, "mcp", false, "measure MCP tool calls instead: a stdio and an HTTP test server through the core against the Go SDK's client with no gate")
	fl.IntVar(&f.isolated, "isolated", 0, fmt.Sprintf("measure N (1 to %d) fixture plugins each in a host of its own instead: start, memory per host, calls/s spread over the hosts, and one host's kill while the others are called", maxIsolatedHosts))
	fl.StringVar(&f.cpuProf, "cpuprofile", "", "write the bench process's (the core's) Go CPU profile to this file; CWX_SHIM_CPUPROFILE=PREFIX profiles the shims")
	cmd.AddCommand(benchMCPServerCmd(), benchGRPCEchoCmd(), benchPipeEchoCmd())
	return cmd
}

func runBench(cmd *cobra.Command, f benchFlags) error {
	ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer cancel()
	if f.plugins < 1 || f.plugins > maxBenchPlugins {
		return exitf(ExitUsage, "--plugins %d: use 1 to %d", f.plugins, maxBenchPlugins)
	}
	if f.mcp && (f.only != "" || f.isolated != 0 || cmd.Flags().Changed("plugins")) {
		return exitf(ExitUsage, "--mcp measures its own MCP servers; leave out --only, --plugins and --isolated")
	}
	if f.isolated < 0 || f.isolated > maxIsolatedHosts {
		return exitf(ExitUsage, "--isolated %d: use 1 to %d", f.isolated, maxIsolatedHosts)
	}
	if f.isolated > 0 && (f.only != "" || cmd.Flags().Changed("plugins")) {
		return exitf(ExitUsage, "--isolated measures its own set of plugins; leave out --only and --plugins")
	}
	if f.only != "" && !slices.Contains(benchSteps, f.only) {
		return exitf(ExitUsage, "--only %q: use ready, oneshot, live, direct, serve or fetch", f.only)
	}
	rt, err := benchRuntime(ctx, f.runtime)
	if err != nil {
		return err
	}
	if f.cpuProf != "" {
		stop, err := startBenchProfile(f.cpuProf)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		defer stop()
	}
	exe, err := os.Executable()
	if err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	tmp, err := os.MkdirTemp("", "cwx-bench-")
	if err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	stderr := cmd.ErrOrStderr()
	if f.isolated > 0 {
		return runIsolatedBench(ctx, cmd.OutOrStdout(), f, &isolatedBench{rt: rt, exe: exe, tmp: tmp, hosts: f.isolated,
			quick: f.quick, progress: progressLine(stderr), log: coreLogger(stderr)})
	}
	r := &benchRun{rt: rt, exe: exe, tmp: tmp, n: benchCounts(f.quick), progress: progressLine(stderr), log: coreLogger(stderr),
		plugins: f.plugins, only: f.only}
	if f.mcp {
		return runMCPBench(ctx, cmd.OutOrStdout(), f, &mcpBench{benchRun: r})
	}
	rep, err := r.run(ctx)
	r.progress("")
	if err != nil {
		return callErr(err)
	}
	return writeBenchReport(cmd.OutOrStdout(), f.asJSON, rep, func(w io.Writer, rep bench.Report) error {
		return bench.WriteTable(w, fmt.Sprintf("%s %s", rt.Kind, rt.Version), rep)
	})
}

// startBenchProfile starts the Go CPU profile of this process into path; stop ends it.
func startBenchProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(fmt.Errorf("--cpuprofile: %w", err), f.Close())
	}
	return func() { pprof.StopCPUProfile(); _ = f.Close() }, nil
}

// writeBenchReport prints rep as JSON, or as the table that table writes (written whole,
// then printed, so a failed table prints nothing).
func writeBenchReport[R any](w io.Writer, asJSON bool, rep R, table func(io.Writer, R) error) error {
	if asJSON {
		return writeJSON(w, rep)
	}
	var buf bytes.Buffer
	if err := table(&buf, rep); err != nil {
		return err
	}
	printf(w, "%s", buf.String())
	return nil
}

// benchRuntime resolves the runtime to measure: --runtime, else the config's choice, with
// the paths the user's config gives.
func benchRuntime(ctx context.Context, kind string) (jsruntime.Runtime, error) {
	if kind != "" && kind != string(jsruntime.KindNode) && kind != string(jsruntime.KindBun) {
		return jsruntime.Runtime{}, exitf(ExitUsage, "--runtime %q: use node or bun", kind)
	}
	home, err := config.Home()
	if err != nil {
		return jsruntime.Runtime{}, &ExitError{Code: ExitInternal, Err: err}
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		return jsruntime.Runtime{}, callErr(err)
	}
	host := cfg.ExtensionHost
	if kind == "" {
		kind = host.Runtime
	}
	res, err := jsruntime.Resolve(ctx, runtimeOptions(home, host, kind))
	if err != nil {
		return jsruntime.Runtime{}, callErr(err)
	}
	return res.Chosen, nil
}

// progressLine returns what reports the step under way: one line rewritten in place on a
// terminal, nothing otherwise; "" clears it.
func progressLine(w io.Writer) func(string) {
	if !isTerminal(w) {
		return func(string) {}
	}
	return func(step string) {
		if step == "" {
			_, _ = io.WriteString(w, "\r\x1b[K")
			return
		}
		_, _ = fmt.Fprintf(w, "\r\x1b[Kcwx bench: %s", step)
	}
}

// benchN are the iteration counts of one run.
type benchN struct {
	ready, oneshot, activate, hop, big, perLevel, kill, fetch int
	mcpSmall, mcpBig                                          int // rounds of 1 KiB and 1 MiB MCP results per transport
}

// totalCalls is how many calls the Manager has served when the shim's and the core's
// memory is read.
const totalCalls = 10000

func benchCounts(quick bool) benchN {
	if quick {
		return benchN{ready: 3, oneshot: 3, activate: 20, hop: 300, big: 20, perLevel: 1000, kill: 3, fetch: 20, mcpSmall: 300, mcpBig: 40}
	}
	return benchN{ready: 20, oneshot: 10, activate: 100, hop: 2000, big: 100, perLevel: 3000, kill: 20, fetch: 100, mcpSmall: 2000, mcpBig: 200}
}

// benchInput asks the fixture's tool for size bytes of text.
func benchInput(size int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"bytes":%d}`, size))
}

// benchManager opens a Manager on the bench home: auto approval, no state watcher, and a
// crash budget large enough for the kill rounds.
func (r *benchRun) openManager(ctx context.Context) (*core.Manager, error) {
	return core.Open(ctx, core.Options{Home: r.home, Logger: r.log, Approval: "auto", PollInterval: -1, ShimPath: r.exe, Tier: benchTier})
}

// closeManager shuts m down within closeWait.
func closeManager(m *core.Manager) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	return m.Close(ctx)
}

// since measures f.
func since(f func() error) (time.Duration, error) {
	t0 := time.Now()
	err := f()
	return time.Since(t0), err
}
