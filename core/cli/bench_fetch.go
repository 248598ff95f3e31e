package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/bench"
	"github.com/cwx-dev/cwx/core/plugins"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// fetchAnswer is what bench_fetch and fetch.mjs answer for one fetch.
type fetchAnswer struct {
	MS     float64 `json:"ms"`
	Bytes  int     `json:"bytes"`
	Status int     `json:"status"`
}

// fetch measures a 1 MiB response fetched by a sandboxed plugin through the core's fetch
// proxy, alternated with the same server fetched by a bare unsandboxed runtime (fetch.mjs),
// both timed in the runtime. Without bubblewrap a host fetches by itself: the step is
// skipped and says so.
func (r *benchRun) fetch(ctx context.Context) (err error) {
	if _, err := jsruntime.ResolveBwrap("", os.Getenv("PATH"), ""); err != nil {
		r.rep.FetchSkipped = "bubblewrap is not installed, so no host fetches through the core: " + err.Error()
		return nil
	}
	r.progress("fetch through the core")
	body := bytes.Repeat([]byte("f"), 1<<20)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		_ = srv.Close()
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	}()
	url := "http://" + ln.Addr().String() + "/1mib"
	m, err := r.fetchManager(ctx, "http://"+ln.Addr().String())
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeManager(m)) }()
	direct, err := startFetchDirect(ctx, r.rt, r.fx.FetchDirect, r.tmp)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, direct.close()) }()
	in, _ := json.Marshal(map[string]string{"url": url})
	var proxied, bare []time.Duration
	for i := range r.n.fetch + 5 { // five untimed rounds first: the JIT, the pools
		r.step("1 MiB fetch, proxied and direct", i, r.n.fetch+5)
		res, err := m.CallTool(ctx, "bench_fetch", in, core.CallOptions{})
		if err != nil {
			return fmt.Errorf("bench_fetch round %d: %w", i+1, err)
		}
		p, err := checkFetch(res.Text(), len(body))
		if err != nil {
			return fmt.Errorf("bench_fetch round %d: %w", i+1, err)
		}
		d, err := direct.fetch(url, len(body))
		if err != nil {
			return fmt.Errorf("direct fetch round %d: %w", i+1, err)
		}
		if i >= 5 {
			proxied, bare = append(proxied, p), append(bare, d)
		}
	}
	r.rep.Fetch1MiBMS = bench.Of(proxied, time.Millisecond)
	r.rep.FetchDirect1MiBMS = bench.Of(bare, time.Millisecond)
	r.rep.FetchAddedP95MS = bench.Round2(r.rep.Fetch1MiBMS.P95 - r.rep.FetchDirect1MiBMS.P95)
	return nil
}

// fetchManager opens a Manager on a home of its own whose plugin tier runs under
// sandbox = "required", with the fetch fixture granted origin (a loopback one).
func (r *benchRun) fetchManager(ctx context.Context, origin string) (*core.Manager, error) {
	home := filepath.Join(r.tmp, "fetch-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\nsandbox = \"required\"\n\n[plugins.\"cwx-bench-fetch\"]\nnetwork = [%q]\nnetwork_private = [%q]\n",
		r.rt.Kind, r.rt.Kind, r.rt.Path, origin, origin)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		return nil, err
	}
	provided, err := jshost.Provided()
	if err != nil {
		return nil, err
	}
	store, err := plugins.Open(plugins.Options{Home: home, Provided: provided.Provided, Refused: provided.Refused})
	if err != nil {
		return nil, err
	}
	res, err := store.Install(r.fx.FetchPlugin)
	if err != nil {
		return nil, fmt.Errorf("install the bench fetch fixture: %w", err)
	}
	rev, err := store.Review(res.ID)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(store.Trust(res.ID, rev.Token), store.Enable(res.ID)); err != nil {
		return nil, err
	}
	m, err := core.Open(ctx, core.Options{Home: home, Logger: r.log, Approval: "auto", PollInterval: -1, ShimPath: r.exe, Tier: benchTier})
	if err != nil {
		return nil, err
	}
	if err := reconcileBounded(ctx, m); err != nil {
		return nil, errors.Join(err, closeManager(m))
	}
	return m, nil
}

// checkFetch reads one answer: the time it took, after checking that the whole body came.
func checkFetch(text string, size int) (time.Duration, error) {
	var a fetchAnswer
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		return 0, fmt.Errorf("answered %q: %w", text, err)
	}
	if a.Status != http.StatusOK || a.Bytes != size {
		return 0, fmt.Errorf("status %d with %d bytes, want 200 with %d", a.Status, a.Bytes, size)
	}
	return time.Duration(a.MS * float64(time.Millisecond)), nil
}

// fetchDirect is the bare runtime running fetch.mjs: a URL a line in, an answer a line out.
type fetchDirect struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startFetchDirect(ctx context.Context, rt jsruntime.Runtime, script, dir string) (*fetchDirect, error) {
	cmd := exec.CommandContext(ctx, rt.Path, script)
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s %s: %w", rt.Kind, filepath.Base(script), err)
	}
	return &fetchDirect{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

func (d *fetchDirect) fetch(url string, size int) (time.Duration, error) {
	if _, err := io.WriteString(d.in, url+"\n"); err != nil {
		return 0, err
	}
	line, err := d.out.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("the direct fetch script ended: %w", err)
	}
	return checkFetch(line, size)
}

// close ends the script (its stdin closed) and waits for it.
func (d *fetchDirect) close() error {
	_ = d.in.Close()
	return d.cmd.Wait()
}
