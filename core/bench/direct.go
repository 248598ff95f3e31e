package bench

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/core/rpc"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/frame"
)

// Bounds of the direct peer's handshake and calls.
const (
	directStart    = 20 * time.Second
	directCall     = 120 * time.Second
	activateMS     = 5000 // the host's own activation bound, as the core gives it
	disposeMS      = 2000
	directDeadline = 120000
)

// Direct is the JS host run by rt over plain pipes (the channel on fd 3 and fd 4, as the
// shim gives it) and spoken to by a core/rpc peer in this process: the same runtime and the
// same host code as a tier, without go-plugin, the shim or the Manager. Its core side admits
// every registration and refuses every other request.
type Direct struct {
	peer    *rpc.Peer
	cmd     *exec.Cmd
	h       *directHandler
	home    string // the host's working directory and the owners' data dir
	runDone chan struct{}
	seq     atomic.Uint64
	gen     atomic.Uint64
}

// StartDirect materializes the embedded host bundle under home, starts it with rt and
// completes the CWX1 handshake (host/hello, host/initialize, host/ready).
func StartDirect(ctx context.Context, rt runtime.Runtime, home string) (*Direct, error) {
	mat, err := bundle.Materialize(home, bundle.Embedded())
	if err != nil {
		return nil, err
	}
	plan := rt.LaunchPlan(mat.Path, string(protocol.TierPlugin), 0, []string{"CWX_HOST_PARENT_PID=" + strconv.Itoa(os.Getpid())})
	in, hostIn, err := os.Pipe() // the host reads fd 3
	if err != nil {
		return nil, err
	}
	hostOut, out, err := os.Pipe() // the host writes fd 4
	if err != nil {
		return nil, errors.Join(err, in.Close(), hostIn.Close())
	}
	cmd := exec.Command(plan.Argv[0], plan.Argv[1:]...)
	cmd.Env, cmd.Dir = plan.Env, home
	cmd.ExtraFiles = []*os.File{in, out}
	err = cmd.Start()
	_, _ = in.Close(), out.Close()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("start %s: %w", plan.Argv[0], err), hostIn.Close(), hostOut.Close())
	}
	d := &Direct{cmd: cmd, home: home, runDone: make(chan struct{}),
		h: &directHandler{hello: make(chan struct{}), ready: make(chan struct{}), handles: map[string]uint64{}}}
	d.peer = rpc.New(&pipeConn{w: frame.NewWriter(hostIn), r: frame.NewReader(hostOut), in: hostIn, out: hostOut}, protocol.TierPlugin, d.h, rpc.Options{})
	go func() { defer close(d.runDone); _ = d.peer.Run(context.Background()) }()
	if err := d.handshake(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *Direct) handshake(ctx context.Context) error {
	if err := waitFor(ctx, d.h.hello, "host/hello"); err != nil {
		return err
	}
	init := protocol.InitializeParams{Protocol: 1, Limits: protocol.HostLimits{MaxFrame: frame.MaxPayload, MaxInflight: protocol.MaxInflight,
		DisposeDeadlineMS: disposeMS, ActivateDeadlineMS: activateMS}}
	if _, err := d.peer.Call(ctx, protocol.MethodHostInitialize, init, rpc.CallOpts{Timeout: directStart}); err != nil {
		return fmt.Errorf("host/initialize: %w", err)
	}
	return waitFor(ctx, d.h.ready, "host/ready")
}

func waitFor(ctx context.Context, ch <-chan struct{}, what string) error {
	t := time.NewTimer(directStart)
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-t.C:
		return fmt.Errorf("no %s from the host within %s", what, directStart)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Activate runs the plugin whose entry is the file at entry under a fresh owner (a new
// generation and token each time) and returns the owner.
func (d *Direct) Activate(ctx context.Context, name, entry string) (protocol.OwnerRef, error) {
	data, err := os.ReadFile(entry)
	if err != nil {
		return protocol.OwnerRef{}, err
	}
	sum := sha256.Sum256(data)
	token := make([]byte, 32)
	_, _ = rand.Read(token)
	owner := protocol.OwnerRef{PluginID: name, Generation: d.gen.Add(1), OwnerToken: hex.EncodeToString(token)}
	p := protocol.ActivateParams{Owner: owner, PluginName: name, Entry: protocol.EntryRef{Path: entry, SHA256: hex.EncodeToString(sum[:])},
		Config: json.RawMessage(`{}`), DataDir: d.home}
	msg, err := d.peer.Call(ctx, protocol.MethodExtActivate, p, rpc.CallOpts{Timeout: directStart})
	if err != nil {
		return owner, fmt.Errorf("ext/activate: %w", err)
	}
	if r, ok := msg.Value.(*protocol.ActivateResult); !ok || r.Status != protocol.ActivateOK {
		return owner, fmt.Errorf("ext/activate of %s did not succeed: %+v", name, msg.Value)
	}
	return owner, nil
}

// Deactivate ends owner's activation.
func (d *Direct) Deactivate(ctx context.Context, owner protocol.OwnerRef) error {
	_, err := d.peer.Call(ctx, protocol.MethodExtDeactivate, protocol.DeactivateParams{Owner: owner}, rpc.CallOpts{Timeout: directStart})
	return err
}

// Handle is the newest handle the host registered for tool name (0 when none).
func (d *Direct) Handle(name string) uint64 { return d.h.handle(name) }

// Call sends tool/call for handle with input and returns the result's text length.
func (d *Direct) Call(ctx context.Context, handle uint64, input json.RawMessage) (int, error) {
	r, err := d.CallResult(ctx, handle, input)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range r.Content {
		n += len(c.Text)
	}
	return n, nil
}

// CallResult sends tool/call for handle with input and returns the host's result, which
// must not be an error result.
func (d *Direct) CallResult(ctx context.Context, handle uint64, input json.RawMessage) (*protocol.ToolResult, error) {
	p := protocol.ToolCallParams{Handle: handle, CallID: "d" + strconv.FormatUint(d.seq.Add(1), 10), Input: input, DeadlineMS: directDeadline}
	msg, err := d.peer.Call(ctx, protocol.MethodToolCall, p, rpc.CallOpts{Timeout: directCall})
	if err != nil {
		return nil, err
	}
	r, ok := msg.Value.(*protocol.ToolResult)
	if !ok || r.IsError {
		return nil, fmt.Errorf("tool/call answered %+v", msg.Value)
	}
	return r, nil
}

// Close ends the peer (the host sees its fd 3 end and exits) and reaps the runtime.
func (d *Direct) Close() {
	d.peer.Close(nil)
	<-d.runDone
	done := make(chan struct{})
	go func() { _ = d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = d.cmd.Process.Kill()
		<-done
	}
}

// pipeConn carries CWX1 frames over the host's channel pipes (rpc.Conn).
type pipeConn struct {
	w       *frame.Writer
	r       *frame.Reader
	in, out *os.File
}

func (c *pipeConn) Send(_ context.Context, p []byte) error { return c.w.WriteFrame(p) }
func (c *pipeConn) Recv() ([]byte, error)                  { return c.r.ReadFrame() }
func (c *pipeConn) Close() error                           { return errors.Join(c.in.Close(), c.out.Close()) }

// directHandler is the smallest core side: it admits every registration.
type directHandler struct {
	hello     chan struct{}
	ready     chan struct{}
	helloOnce sync.Once
	readyOnce sync.Once

	mu      sync.Mutex
	next    uint64            // +checklocks:mu
	handles map[string]uint64 // +checklocks:mu
}

func (h *directHandler) HandleRequest(_ context.Context, m *protocol.Message) (any, error) {
	if p, ok := m.Value.(*protocol.RegisterParams); ok {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.next++
		n := h.next
		h.handles[p.Spec.Name] = n
		return protocol.RegisterResult{Handle: &n}, nil
	}
	if m.Method == protocol.MethodRegistryUnregister {
		return protocol.Empty{}, nil
	}
	return nil, &protocol.RPCError{Code: protocol.CodeRefused, Message: "not served by the benchmark's direct peer"}
}

func (h *directHandler) HandleNotification(m *protocol.Message) {
	switch m.Method {
	case protocol.MethodHostHello:
		h.helloOnce.Do(func() { close(h.hello) })
	case protocol.MethodHostReady:
		h.readyOnce.Do(func() { close(h.ready) })
	}
}

func (h *directHandler) handle(name string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.handles[name]
}
