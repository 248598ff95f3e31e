package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/frame"
)

// Floor is the physical floor of a big result: the floor script under the same runtime,
// writing a prepared frame of a tool/call answer to a pipe that the core's frame reader
// (shared/frame) reads in this process. Whatever a tier adds above it is host, hop and core.
type Floor struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	r    *frame.Reader
	size int
}

// StartFloor runs script (Fixtures.Floor) with rt, answering with size bytes of text.
func StartFloor(rt runtime.Runtime, script string, size int) (*Floor, error) {
	cmd := exec.Command(rt.Path, script, strconv.Itoa(size))
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the floor script: %w", err)
	}
	return &Floor{cmd: cmd, in: in, r: frame.NewReader(out), size: size}, nil
}

// Trip asks for one frame and reads it whole; it returns the time from the request to the
// last byte read.
func (f *Floor) Trip() (time.Duration, error) {
	t0 := time.Now()
	if _, err := f.in.Write([]byte{1}); err != nil {
		return 0, err
	}
	p, err := f.r.ReadFrame()
	el := time.Since(t0)
	if err != nil {
		return 0, err
	}
	if len(p) < f.size {
		return 0, fmt.Errorf("floor frame of %d bytes, want at least %d", len(p), f.size)
	}
	return el, nil
}

// Close ends the script (stdin closes) and reaps it.
func (f *Floor) Close() error {
	return errors.Join(f.in.Close(), f.cmd.Wait())
}
