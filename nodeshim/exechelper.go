package nodeshim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/cwx-dev/cwx/shared"
)

// execHelperMode is the word after the subcommand that makes the shim's binary the exec
// helper: `cwx nodeshim exec-helper <limit> -- <runtime argv>`. The helper is what spawn
// starts; it sets RLIMIT_DATA to <limit> bytes on itself, drops go-plugin's cookie from its
// environment and execs the runtime in its place (same pid, group and descriptors), so the
// limit binds the runtime only and never the shim, which would die under a small limit.
const execHelperMode = "exec-helper"

// helperArgv is the exec helper's argv for running argv under limit.
func helperArgv(exe string, limit uint64, argv []string) []string {
	head := []string{exe, shared.Subcommand, execHelperMode, strconv.FormatUint(limit, 10), "--"}
	return append(head, argv...)
}

// helperEnv is env plus go-plugin's cookie, which the shim's dispatch requires and the
// helper removes again before the exec.
func helperEnv(env []string) []string {
	return append(env[:len(env):len(env)], shared.CookieKey+"="+shared.CookieValue)
}

// launcher returns the program, its argv and its environment that start argv (the plan's,
// env its environment) with RLIMIT_DATA at limit. With prlimit (util-linux's, found by
// prlimitLauncher; "" when it is not to be used) that is `prlimit --data=L:L -- <argv>`, which
// sets the limit on itself and execs argv in its place exactly as the exec helper does: a C
// program that starts in ~3 ms where the helper, the cwx binary again, takes ~20 ms (a Go start;
// BENCHMARKS.md, “The sandboxed Node start”). Otherwise, and for a sandboxed plan while the shim
// has a controlling terminal (which only the helper gives up), it is the exec helper (exe).
// Under prlimit go-plugin's cookie reaches nothing but cwx's own privilege drop inside the
// sandbox, which needs it for the shim's dispatch and removes it before the runtime starts.
func launcher(exe, prlimit string, limit uint64, argv, env []string) (path string, args, outEnv []string) {
	if prlimit == "" {
		return exe, helperArgv(exe, limit, argv), helperEnv(env)
	}
	if sandboxed(env) && dropsPrivileges(argv) {
		env = helperEnv(env)
	}
	l := strconv.FormatUint(limit, 10)
	return prlimit, append([]string{prlimit, "--data=" + l + ":" + l, "--"}, argv...), env
}

// RunExecHelper is the exec helper (args are those after "exec-helper"). It returns only
// when it could not become the runtime, with exit status 126 as a shell reports a command
// that cannot be run; the reason goes to fd 2, which the shim logs.
func RunExecHelper(args []string) int {
	if err := execRuntime(args); err != nil {
		fmt.Fprintf(os.Stderr, "cwx exec helper: %v\n", err)
	}
	return 126
}

// withoutCookie is env less go-plugin's cookie.
func withoutCookie(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, shared.CookieKey+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// dropsPrivileges reports whether a sandboxed argv runs the privilege drop inside
// bubblewrap (core/runtime's Profile with a SandboxUser).
func dropsPrivileges(argv []string) bool {
	inner, err := runtimeArgv(argv)
	return err == nil && len(inner) > 2 && inner[1] == shared.Subcommand && inner[2] == shared.DropPrivilegesMode
}

func execRuntime(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: %s <limit bytes> -- <argv>", execHelperMode)
	}
	limit, err := strconv.ParseUint(args[0], 10, 64)
	if err != nil {
		return fmt.Errorf("bad limit %q: %w", args[0], err)
	}
	argv := args[2:]
	env := withoutCookie(os.Environ())
	if sandboxed(env) && dropsPrivileges(argv) {
		// The privilege drop inside the sandbox is this binary again, and the shim's
		// dispatch requires the cookie; the drop removes it before the runtime starts.
		env = os.Environ()
	}
	if sandboxed(env) {
		// bubblewrap runs without --new-session (see core/runtime's Profile), so the
		// sandbox must not keep the terminal: without it, /dev/tty inside cannot be opened
		// and no TIOCSTI can reach the person's terminal.
		if err := detachTerminal(); err != nil {
			return fmt.Errorf("detach from the controlling terminal: %w", err)
		}
	}
	// The environment is built before the limit is lowered, so the exec is the only thing
	// left to run under it.
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		return fmt.Errorf("set RLIMIT_DATA to %d bytes: %w", limit, err)
	}
	if err := syscall.Exec(argv[0], argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", argv[0], err)
	}
	return nil
}
