package runtime

import (
	"context"
	"path/filepath"
	"time"
)

// SandboxReport says whether bubblewrap is present and can run a command.
type SandboxReport struct {
	Name    string `json:"name"` // "bubblewrap"
	Path    string `json:"path,omitempty"`
	Present bool   `json:"present"`
	Works   bool   `json:"works"`
	Detail  string `json:"detail"`
}

// bwrapFallback is where bubblewrap lives when PATH does not name it (a variable for tests).
var bwrapFallback = "/usr/bin/bwrap"

// CheckBubblewrap looks for bwrap on pathEnv (then /usr/bin/bwrap) and runs
// `bwrap --ro-bind / / true` with an empty environment under timeout.
func CheckBubblewrap(ctx context.Context, pathEnv string, timeout time.Duration) SandboxReport {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	rep := SandboxReport{Name: "bubblewrap"}
	path := lookPathIn("bwrap", pathEnv)
	if path == "" && isExecutable(bwrapFallback) {
		path = bwrapFallback
	}
	if path == "" {
		rep.Detail = "bwrap not found (install bubblewrap to sandbox the plugin tier)"
		return rep
	}
	rep.Path, rep.Present = path, true
	res := runProbe(ctx, timeout, path, "--ro-bind", "/", "/", "true")
	if res.err != nil {
		rep.Detail = res.describe("`bwrap --ro-bind / / true`", timeout)
		return rep
	}
	rep.Works = true
	rep.Detail = "`bwrap --ro-bind / / true` succeeded"
	return rep
}

// lookPathIn finds an executable named name in the absolute entries of pathEnv.
func lookPathIn(name, pathEnv string) string {
	for _, dir := range splitAbs(pathEnv) {
		p := dir + "/" + name
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

func splitAbs(pathEnv string) []string {
	var out []string
	for _, d := range filepath.SplitList(pathEnv) {
		if len(d) > 0 && d[0] == '/' {
			out = append(out, d)
		}
	}
	return out
}
