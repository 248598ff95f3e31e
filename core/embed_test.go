package core

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// script writes an executable shell script standing in for an embedding program.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "embedder")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenChecksTheShim: with a plugin enabled, Open refuses a program that does not run
// nodeshim.Main when started as the shim, saying what to change, and accepts one that does
// (the cwx binary); with nothing enabled it runs nothing.
func TestOpenChecksTheShim(t *testing.T) {
	noDispatch := script(t, `echo "usage: embedder [-home DIR] TOOL" >&2; exit 2`)
	empty := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	enabled := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	enabled.install("command")
	cases := []struct {
		name string
		home string
		shim string
		want []string // "" when Open succeeds
	}{
		{"a program that runs its own main", enabled.home, noDispatch,
			[]string{"does not run the extension-host shim", "exited with status 2", "saying: usage: embedder", "call nodeshim.Main first in main", "see examples/embed"}},
		{"a program that ends quietly", enabled.home, script(t, "exit 0"), []string{"exited with status 0", "call nodeshim.Main first"}},
		{"no such program", enabled.home, filepath.Join(t.TempDir(), "missing"), []string{"run ", "call nodeshim.Main first"}},
		{"the cwx binary", enabled.home, cwxBin, nil},
		{"nothing enabled: no check", empty.home, noDispatch, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Open(context.Background(), Options{Home: tc.home, ShimPath: tc.shim, Logger: testLogger(t), PollInterval: -1})
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				_ = m.Close(context.Background())
				return
			}
			if err == nil {
				_ = m.Close(context.Background())
				t.Fatal("Open accepted a program that is not the shim")
			}
			if !errors.Is(err, ErrNoShim) || !errors.Is(err, ErrNotAvailable) {
				t.Errorf("%v is not ErrNoShim", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestOpenInsideTheProbeFails: a program that ran its own main when probed as the shim and
// opens a Manager there fails at once instead of probing itself again.
func TestOpenInsideTheProbeFails(t *testing.T) {
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	e.install("command")
	t.Setenv("CWX_SHIM_PROBE", "1") // owners.shimProbeEnv
	m, err := Open(context.Background(), Options{Home: e.home, ShimPath: cwxBin, Logger: testLogger(t), PollInterval: -1})
	if err == nil {
		_ = m.Close(context.Background())
		t.Fatal("Open inside the probe succeeded")
	}
	if !errors.Is(err, ErrNoShim) || !strings.Contains(err.Error(), "ran the program's own main") {
		t.Fatalf("err %v", err)
	}
}

// TestErrUnknownTool: a name nothing has is ErrUnknownTool (and ErrNotAvailable); a name a
// plugin claims but has not made live is not unknown.
func TestErrUnknownTool(t *testing.T) {
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	m := e.open(func(o *Options) { o.PollInterval = -1 })
	_, err := m.CallTool(context.Background(), "no_such_tool", []byte(`{}`), CallOptions{})
	if !errors.Is(err, ErrUnknownTool) || !errors.Is(err, ErrNotAvailable) {
		t.Fatalf("unknown tool: %v", err)
	}
	claimed := &NotLiveError{Kind: "tool", Name: "greet", Plugin: "hello", Why: "whose activation failed: boom"}
	if errors.Is(claimed, ErrUnknownTool) || !errors.Is(claimed, ErrNotAvailable) {
		t.Fatalf("a claimed tool: %v", claimed)
	}
	if errors.Is(&NotLiveError{Kind: "command", Name: "x"}, ErrUnknownTool) {
		t.Fatal("an unknown command is an unknown tool")
	}
}

// TestDefaultLogger: a Manager opened without a Logger writes warnings to stderr and
// nothing below them.
func TestDefaultLogger(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	l := DefaultLogger()
	os.Stderr = old
	l.Info("an info line")
	l.Warn("a warning line", "plugin", "hello")
	w.Close()
	var got bytes.Buffer
	if _, err := io.Copy(&got, r); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if s := got.String(); !strings.Contains(s, "[WARN]  cwx: a warning line: plugin=hello") || strings.Contains(s, "info line") {
		t.Fatalf("stderr %q", s)
	}
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	m, err := Open(context.Background(), Options{Home: e.home, PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	if !m.log.IsWarn() || m.log.IsInfo() {
		t.Fatal("a Manager without a Logger does not log warnings (only)")
	}
}
