package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core"
)

// The progress line (core/cli doc.go, “CLI conventions”): an operation still running after
// progressAfter (a tier start, an install, a call) shows one line on stderr, a spinner with
// what it waits for and for how long, redrawn in place and erased when it ends. Only on a
// terminal: piped or redirected stderr never gets it. A prompt on the same terminal (an
// approval card, a plugin's question) pauses it while the person answers.
const (
	progressAfter = 500 * time.Millisecond
	progressTick  = 100 * time.Millisecond
)

// progressEnv is what the progress line needs from the outside; tests replace it.
var progressEnv = struct {
	after  func(time.Duration) <-chan time.Time
	ticker func(time.Duration) (<-chan time.Time, func())
	now    func() time.Time
}{
	after: time.After,
	ticker: func(d time.Duration) (<-chan time.Time, func()) {
		t := time.NewTicker(d)
		return t.C, t.Stop
	},
	now: time.Now,
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// progressLines maps a terminal's writer to the progress line on it: one line per
// terminal (an operation inside another keeps the outer line), found by the prompts that
// pause it.
var progressLines sync.Map // io.Writer → *spinLine

// spinLine is one line's drawing goroutine and the channels that steer it. The
// goroutine is the only writer of the line, so pausing is a request it acknowledges.
type spinLine struct {
	w     io.Writer
	what  string
	color bool
	ctl   chan progressCtl
	stop  chan struct{}
	done  chan struct{}
}

type progressCtl struct {
	pause bool
	ack   chan struct{}
}

// startProgress shows what on w from progressAfter on, when w is a terminal, until the
// returned function is called (it erases the line and joins the goroutine; calling it again
// does nothing).
func startProgress(w io.Writer, what string) (stop func()) {
	if w == nil || !reflect.TypeOf(w).Comparable() || !isTerminal(w) {
		return func() {}
	}
	p := &spinLine{w: w, what: stripEscapes(what), color: colorOn(w),
		ctl: make(chan progressCtl), stop: make(chan struct{}), done: make(chan struct{})}
	if _, taken := progressLines.LoadOrStore(w, p); taken {
		return func() {}
	}
	go p.run()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(p.stop)
			<-p.done
			progressLines.CompareAndDelete(w, p)
		})
	}
}

// pauseProgress erases the progress line on w, if there is one, and keeps it off until the
// returned function is called.
func pauseProgress(w io.Writer) (resume func()) {
	if w == nil || !reflect.TypeOf(w).Comparable() {
		return func() {}
	}
	v, ok := progressLines.Load(w)
	if !ok {
		return func() {}
	}
	p := v.(*spinLine)
	if !p.send(true) {
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { p.send(false) }) }
}

// send asks the goroutine to pause or resume and waits until it has; false when the line
// already ended.
func (p *spinLine) send(pause bool) bool {
	ack := make(chan struct{})
	select {
	case p.ctl <- progressCtl{pause: pause, ack: ack}:
		<-ack
		return true
	case <-p.done:
		return false
	}
}

func (p *spinLine) run() {
	defer close(p.done)
	begin := progressEnv.now()
	paused, drawn := false, false
	erase := func() {
		if drawn {
			_, _ = io.WriteString(p.w, "\r\x1b[K")
			drawn = false
		}
	}
	defer erase()
	wait := progressEnv.after(progressAfter)
	var tick <-chan time.Time
	frame := 0
	for {
		select {
		case <-p.stop:
			return
		case c := <-p.ctl:
			paused = c.pause
			if paused {
				erase()
			}
			close(c.ack)
			continue
		case <-wait:
			wait = nil
			var stopTick func()
			tick, stopTick = progressEnv.ticker(progressTick)
			defer stopTick()
		case <-tick:
		}
		if paused {
			continue
		}
		elapsed := progressEnv.now().Sub(begin).Truncate(100 * time.Millisecond)
		_, _ = fmt.Fprintf(p.w, "\r\x1b[K%s %s (%.1fs)", paint(p.color, styleCyan, spinnerFrames[frame%len(spinnerFrames)]), p.what, elapsed.Seconds())
		drawn = true
		frame++
	}
}

// progressCore shows the progress line on w while a tool call or a command runs; it is
// erased before the caller prints the result.
type progressCore struct {
	liveCore
	w io.Writer
}

func (c progressCore) CallTool(ctx context.Context, name string, input json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
	defer startProgress(c.w, "running tool "+name)()
	return c.liveCore.CallTool(ctx, name, input, o)
}

func (c progressCore) RunCommand(ctx context.Context, name, rawInput string, o core.CallOptions) (core.CommandResult, error) {
	defer startProgress(c.w, "running command /"+name)()
	return c.liveCore.RunCommand(ctx, name, rawInput, o)
}
