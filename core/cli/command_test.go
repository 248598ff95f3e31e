package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/config"
)

func TestCommandListGoldens(t *testing.T) {
	f := newFakeCore()
	f.commands = demoCommands()
	useFake(t, f)
	checkGolden(t, "command-list.golden", []byte(mustCLI(t, "command", "list")))
	checkGolden(t, "command-list-json.golden", []byte(mustCLI(t, "command", "list", "--json")))
}

func TestCommandRunGoldens(t *testing.T) {
	f := newFakeCore()
	f.commands = demoCommands()
	f.run = func(_ context.Context, name, raw string, _ core.CallOptions) (core.CommandResult, error) {
		switch strings.TrimSpace(raw) {
		case "submit":
			return core.CommandResult{Kind: "submit", Text: "handing over", Prompt: "Say hello.\nThen stop."}, nil
		case "error":
			return core.CommandResult{Kind: "error", Text: "no \x1b[1mgreeting\x1b[0m today"}, nil
		}
		return core.CommandResult{Kind: "success", Text: "Ahoy, " + strings.TrimSpace(raw) + "!"}, nil
	}
	useFake(t, f)
	checkGolden(t, "command-run.golden", []byte(mustCLI(t, "command", "run", "hello", "Grace", "Hopper")))
	if !f.logged("run hello  Grace Hopper") {
		t.Fatalf("the raw input did not keep the typed form: %q", f.log)
	}
	checkGolden(t, "command-run-json.golden", []byte(mustCLI(t, "command", "run", "--json", "/hello", "Grace")))
	checkGolden(t, "command-run-submit.golden", []byte(mustCLI(t, "command", "run", "hello", "submit")))

	r := runPluginCLI(t, "command", "run", "hello", "error")
	if r.code != ExitPlugin {
		t.Fatalf("error result: exit %d", r.code)
	}
	checkGolden(t, "command-run-error.golden", []byte(r.stdout+r.stderr))
	r = runPluginCLI(t, "command", "run", "--json", "hello", "error")
	if r.code != ExitPlugin {
		t.Fatalf("error result --json: exit %d", r.code)
	}
	checkGolden(t, "command-run-error-json.golden", []byte(r.stdout+r.stderr))
}

// TestCommandRunFlagsAfterName: what follows NAME is the command's input, flags included.
func TestCommandRunFlagsAfterName(t *testing.T) {
	f := newFakeCore()
	f.commands = demoCommands()
	useFake(t, f)
	mustCLI(t, "command", "run", "hello", "--json", "-x")
	if !f.logged("run hello  --json -x") {
		t.Fatalf("log %q", f.log)
	}
}

// TestCommandExitCodes covers every exit status (core/cli doc.go, “CLI conventions”) for the
// command group.
func TestCommandExitCodes(t *testing.T) {
	fail := func(err error) func(context.Context, string, string, core.CallOptions) (core.CommandResult, error) {
		return func(context.Context, string, string, core.CallOptions) (core.CommandResult, error) {
			return core.CommandResult{}, err
		}
	}
	cases := []struct {
		name      string
		args      []string
		run       func(context.Context, string, string, core.CallOptions) (core.CommandResult, error)
		reconcile func(context.Context, *fakeCore) error
		want      int
	}{
		{"ok", []string{"run", "hello"}, nil, nil, ExitOK},
		{"list ok", []string{"list"}, nil, nil, ExitOK},
		{"internal", []string{"run", "hello"}, fail(errors.New("boom")), nil, ExitInternal},
		{"usage: no name", []string{"run"}, nil, nil, ExitUsage},
		{"usage: list args", []string{"list", "x"}, nil, nil, ExitUsage},
		{"invalid config", []string{"list"}, nil, func(context.Context, *fakeCore) error {
			return &config.Error{Key: "plugins", Reason: "bad"}
		}, ExitInvalid},
		{"denied", []string{"run", "hello"}, fail(core.ErrDenied), nil, ExitDenied},
		{"unknown command", []string{"run", "nope"}, nil, nil, ExitUnavailable},
		{"no runtime on list", []string{"list"}, nil, func(context.Context, *fakeCore) error {
			return fmt.Errorf("start the plugin tier: %w", core.ErrNotAvailable)
		}, ExitUnavailable},
		{"plugin failed", []string{"run", "hello"}, fail(&core.ExecutionError{Name: "hello", Message: "empty submit prompt"}), nil, ExitPlugin},
		{"timeout", []string{"run", "hello"}, fail(core.ErrTimeout), nil, ExitTimeout},
		{"cancelled", []string{"run", "hello"}, fail(core.ErrCancelled), nil, ExitTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeCore()
			f.commands = demoCommands()
			f.run, f.reconcile = c.run, c.reconcile
			useFake(t, f)
			r := runPluginCLI(t, append([]string{"command"}, c.args...)...)
			if r.code != c.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, c.want, r.stdout, r.stderr)
			}
		})
	}
}
