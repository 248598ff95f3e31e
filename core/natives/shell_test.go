//go:build linux

package natives

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

type shellStatus struct {
	ExitCode  int  `json:"exit_code"`
	TimedOut  bool `json:"timed_out"`
	Truncated bool `json:"truncated"`
}

// TestShell: output, exit status, the workspace as the directory, output bounds.
func TestShell(t *testing.T) {
	ws, _ := tree(t, map[string]string{"here.txt": "here\n"})
	tests := []struct {
		name, command string
		want          string // prefix of the text
		status        shellStatus
	}{
		{"stdout", "echo hi", "hi\n", shellStatus{}},
		{"stderr with stdout", "echo out; echo err >&2", "out\nerr\n", shellStatus{}},
		{"stderr after stdout", "echo err >&2; echo out", "out\nerr\n", shellStatus{}},
		{"stderr on a line of its own", "printf out; printf err >&2", "out\nerr", shellStatus{}},
		{"runs in the workspace", "cat here.txt", "here\n", shellStatus{}},
		{"exit status", "echo no; exit 3", "no\n[exit status 3]", shellStatus{ExitCode: 3}},
		{"stdin is empty", "cat; echo done", "done\n", shellStatus{}},
		{"bounded", "head -c 200000 /dev/zero | tr '\\0' a", strings.Repeat("a", MaxShellOutput) + "\n[output cut: " + strconv.Itoa(200000-MaxShellOutput) + " more bytes]", shellStatus{Truncated: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]any{"command": tc.command})
			res, err := Shell().Run(context.Background(), Call{Workspace: ws, Input: in})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tc.want {
				t.Errorf("text %.200q, want %.200q", res.Text, tc.want)
			}
			var st shellStatus
			if err := json.Unmarshal(res.Structured, &st); err != nil || st != tc.status {
				t.Errorf("status %s, want %+v", res.Structured, tc.status)
			}
			if res.IsError != (tc.status.ExitCode != 0) {
				t.Errorf("IsError %v", res.IsError)
			}
		})
	}
}

// TestShellStreams: stdout and stderr are kept apart in Streams, within one MaxShellOutput
// together; the text holds both.
func TestShellStreams(t *testing.T) {
	ws, _ := tree(t, nil)
	tests := []struct {
		name, command string
		want          Streams
	}{
		{"both", "echo out; echo err >&2", Streams{Stdout: "out\n", Stderr: "err\n"}},
		{"stderr only", "echo oops >&2; exit 1", Streams{Stderr: "oops\n"}},
		{"a descendant's", "(echo child >&2) ; echo parent", Streams{Stdout: "parent\n", Stderr: "child\n"}},
		{"bounded together", "head -c 50000 /dev/zero | tr '\\0' o; head -c 50000 /dev/zero | tr '\\0' e >&2",
			Streams{Stdout: strings.Repeat("o", 50000), Stderr: strings.Repeat("e", MaxShellOutput-50000), Truncated: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]any{"command": tc.command})
			res, err := Shell().Run(context.Background(), Call{Workspace: ws, Input: in})
			if err != nil {
				t.Fatal(err)
			}
			if res.Streams == nil || *res.Streams != tc.want {
				t.Fatalf("streams %.200v, want %.200v", res.Streams, tc.want)
			}
			if !strings.Contains(res.Text, tc.want.Stdout[:min(len(tc.want.Stdout), 100)]) || !strings.Contains(res.Text, tc.want.Stderr[:min(len(tc.want.Stderr), 100)]) {
				t.Fatalf("text %.200q lacks a stream", res.Text)
			}
		})
	}
}

// TestShellKillsTheTree: a timeout and a cancel each kill the shell and everything it
// started, including a background child; after a normal exit a leftover background child
// is killed too. The child's pid is read from the output and must be gone.
func TestShellKillsTheTree(t *testing.T) {
	ws, _ := tree(t, nil)
	tests := []struct {
		name    string
		command string
		timeout int
		cancel  bool
	}{
		{"timeout", "sleep 300 & echo $!; sleep 300", 1, false},
		{"cancel", "sleep 300 & echo $!; sleep 300", 0, true},
		{"background child after exit", "sleep 300 & echo $!", 0, false},
		{"nested shell", "sh -c 'sleep 300 & echo $!; wait' & wait", 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			// The pid also goes to a pipe of the test's, so it is known before the call ends.
			cmd := strings.Replace(tc.command, "echo $!", "echo $! >&3; echo $!", 1)
			input, _ := json.Marshal(map[string]any{"command": cmd})
			if tc.timeout > 0 {
				input, _ = json.Marshal(map[string]any{"command": cmd, "timeout_s": tc.timeout})
			}
			done := make(chan struct{})
			var res Result
			var runErr error
			go func() {
				defer close(done)
				res, runErr = runWithFD3(ctx, ws, input, pw)
			}()
			pid := readPid(t, pr)
			if tc.cancel {
				cancel()
			}
			<-done
			pw.Close()
			switch {
			case tc.cancel && !errors.Is(runErr, context.Canceled):
				t.Errorf("cancelled run: %v", runErr)
			case !tc.cancel && runErr != nil:
				t.Fatal(runErr)
			case tc.timeout > 0 && !strings.Contains(res.Text, "[timed out after 1s; the command and everything it started were killed]"):
				t.Errorf("text %q", res.Text)
			}
			waitGone(t, pid)
		})
	}
}

// runWithFD3 runs shell with extra opened as the command's fd 3, by its /proc path (the
// tool itself gives the command no descriptor but stdin, stdout and stderr).
func runWithFD3(ctx context.Context, ws string, input json.RawMessage, extra *os.File) (Result, error) {
	var in shellInput
	_ = json.Unmarshal(input, &in)
	in.Command = "exec 3>/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(int(extra.Fd())) + "; " + in.Command
	b, _ := json.Marshal(in)
	return Shell().Run(ctx, Call{Workspace: ws, Input: b})
}

func readPid(t *testing.T, r *os.File) int {
	t.Helper()
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 32)
	n, err := r.Read(buf)
	if err != nil {
		t.Fatalf("read the child's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatalf("child pid %q: %v", buf[:n], err)
	}
	return pid
}

// waitGone fails unless pid is gone (or a zombie) within a bound: SIGKILL is delivered at
// once but the exit is the kernel's to finish.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}
