// Package bench holds the measurement code of `cwx bench` and of the repository's Go
// benchmarks: latency percentiles, per-process CPU time and resident memory read from
// /proc, a description of the machine, a direct CWX1 peer that speaks to the JS host over
// plain pipes (the baseline without the go-plugin hop), the physical floor of a big result
// (a bare runtime script writing one frame), the fixture plugin the runs load, and the fetch
// fixture (`bench_fetch`, a sandboxed plugin's fetch through the core's fetch proxy) with its
// baseline, a bare runtime script fetching the same URLs (fetch.mjs), and the MCP fixture
// server of `cwx bench --mcp` (the Go SDK's server with one tool, served over stdio by the
// hidden `cwx bench mcp-server` and over Streamable HTTP in the bench process) with its
// baseline, the Go SDK's client on the same server with no gate.
//
// Nothing here is a timed assertion: the figures are reported, never checked (ARCHITECTURE.md,
// “Lifecycles and numbers”). The package does not import the core's Manager, so the core's
// own tests can use it too; the run that drives a Manager lives in core/cli (`cwx bench`).
package bench
