package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"time"

	"github.com/cwx-dev/cwx/core/bench"
)

// serveMCP alternates the fixture's 1 KiB call through a `cwx serve --mcp` process on the
// bench home (the Go SDK's client on its stdio, the path an MCP client takes) with the same
// call through Manager.CallTool in this process.
func (r *benchRun) serveMCP(ctx context.Context) (err error) {
	m, err := r.openManager(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeManager(m)) }()
	if err := reconcileBounded(ctx, m); err != nil {
		return err
	}
	if err := r.needLive(m); err != nil {
		return err
	}
	r.progress("starting cwx serve --mcp")
	cmd := exec.Command(r.exe, "serve", "--mcp", "--approve", "auto", "--approve-extensions")
	cmd.Env = append(os.Environ(), "CWX_HOME="+r.home)
	cmd.Dir = r.tmp
	peer, err := bench.DialMCPCommand(ctx, cmd)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, peer.Close()) }()
	viaServe := func() error { return peer.CallText(ctx, bench.FixtureTool, in1KiB, 1<<10) }
	viaManager := func() error { return call1KiB(ctx, m) }
	ls, lm, err := alternate(r, "1 KiB calls, serve --mcp and the Manager", r.n.hop, viaServe, viaManager)
	if err != nil {
		return err
	}
	r.rep.ServeMCP1KiBUS = bench.Of(ls, time.Microsecond)
	r.rep.ServeMCPAddedUS = bench.Added(r.rep.ServeMCP1KiBUS, bench.Of(lm, time.Microsecond))
	return nil
}
