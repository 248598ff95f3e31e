package natives

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Bounds of shell.
const (
	DefaultShellTimeout = 60 * time.Second
	MaxShellTimeout     = 600 * time.Second
	// MaxShellOutput bounds what shell keeps of the command's stdout and stderr together;
	// the rest is read and counted, not kept.
	MaxShellOutput = 64 << 10
	// shellDrain bounds how long output is still read once the process group was killed
	// (a descendant that left the group may hold the pipe).
	shellDrain = time.Second
)

// Shell returns the shell tool: {command, timeout_s?} runs `/bin/sh -c command` in the
// workspace, in a process group of its own, with stdin empty and stdout and stderr
// together bounded at MaxShellOutput. The text is stdout, then stderr (joined); Streams
// holds them apart. timeout_s is DefaultShellTimeout unless given (at
// most MaxShellTimeout). When the command ends, times out or the call is cancelled, the
// whole group is killed. A non-zero exit or a timeout is an error result.
func Shell() Tool { return shellTool{} }

type shellTool struct{}

func (shellTool) Spec() Spec {
	return Spec{
		Name:        "shell",
		Description: "Run a shell command (/bin/sh -c) in the workspace; stdout is returned, then stderr.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","minLength":1,"description":"the command line"},` +
			`"timeout_s":{"type":"integer","minimum":1,"maximum":` + strconv.Itoa(int(MaxShellTimeout/time.Second)) + `,"description":"seconds before the command is killed"}},` +
			`"required":["command"],"additionalProperties":false}`),
		Forced: true,
	}
}

type shellInput struct {
	Command  string `json:"command"`
	TimeoutS int    `json:"timeout_s"`
}

// shellOutcome is what running a command produced.
type shellOutcome struct {
	exitCode int // -1 when killed by a signal or not started
	timedOut bool
	// stdout and stderr are the two streams apart, within one MaxShellOutput together.
	stdout, stderr []byte
	dropped        int64 // bytes read beyond MaxShellOutput
}

func (shellTool) Run(ctx context.Context, c Call) (Result, error) {
	var in shellInput
	if err := decode("shell", c.Input, &in); err != nil {
		return Result{}, err
	}
	w, err := openWorkspace(c.Workspace)
	if err != nil {
		return Result{}, err
	}
	w.Close() // only checked: the command runs in the directory itself
	timeout := DefaultShellTimeout
	if in.TimeoutS > 0 {
		timeout = min(time.Duration(in.TimeoutS)*time.Second, MaxShellTimeout)
	}
	out, err := runShell(ctx, c.Workspace, in.Command, timeout)
	if err != nil {
		return Result{}, err
	}
	return out.result(timeout), nil
}

func (o shellOutcome) result(timeout time.Duration) Result {
	text := string(joined(o.stdout, o.stderr))
	if o.dropped > 0 {
		text += fmt.Sprintf("\n[output cut: %d more bytes]", o.dropped)
	}
	var status string
	switch {
	case o.timedOut:
		status = fmt.Sprintf("[timed out after %s; the command and everything it started were killed]", timeout)
	case o.exitCode != 0:
		status = fmt.Sprintf("[exit status %d]", o.exitCode)
	}
	if status != "" {
		if text != "" && text[len(text)-1] != '\n' {
			text += "\n"
		}
		text += status
	}
	st, _ := json.Marshal(struct {
		ExitCode  int  `json:"exit_code"`
		TimedOut  bool `json:"timed_out"`
		Truncated bool `json:"truncated"`
	}{o.exitCode, o.timedOut, o.dropped > 0})
	return Result{Text: text, IsError: o.timedOut || o.exitCode != 0, Structured: st,
		Streams: &Streams{Stdout: string(o.stdout), Stderr: string(o.stderr), Truncated: o.dropped > 0}}
}

// capture keeps what a command writes to stdout and to stderr, each apart, the two within
// one budget of max bytes; the rest is read and counted, not kept.
type capture struct {
	mu             sync.Mutex
	max            int
	stdout, stderr []byte // +checklocks:mu
	dropped        int64  // +checklocks:mu
}

// stream is one of a capture's two writers.
type stream struct {
	c   *capture
	err bool // stderr
}

func (s stream) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := min(len(p), c.max-len(c.stdout)-len(c.stderr))
	if s.err {
		c.stderr = append(c.stderr, p[:keep]...)
	} else {
		c.stdout = append(c.stdout, p[:keep]...)
	}
	c.dropped += int64(len(p) - keep)
	return len(p), nil
}

// joined is the text a caller sees of the two streams: stdout, then stderr on a line of
// its own. Two pipes cannot say in which order writes to both came, so the text does not
// guess: it is the order Claude Code's Bash gives its model too.
func joined(stdout, stderr []byte) []byte {
	out := append([]byte(nil), stdout...)
	if len(out) > 0 && len(stderr) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, stderr...)
}
