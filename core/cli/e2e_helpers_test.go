package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// e2eHome returns a fresh CWX_HOME whose config.toml selects rt by path, followed by
// pluginConf (TOML tables of plugin config).
func e2eHome(t testing.TB, rt testenv.Runtime, pluginConf string) string {
	t.Helper()
	home := t.TempDir()
	conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n\n%s", rt.Name, rt.Name, rt.Path, pluginConf)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// loggedRuntime returns rt reached through a wrapper script that appends each start's
// arguments, one line, to log (created on the first start).
func loggedRuntime(t testing.TB, rt testenv.Runtime) (wrapped testenv.Runtime, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "runtime-starts.log")
	wrapped = testenv.Runtime{Name: rt.Name, Path: filepath.Join(dir, rt.Name)}
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q \"$@\"\n", log, rt.Path)
	if err := os.WriteFile(wrapped.Path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapped, log
}

// e2eCWX runs the real cwx binary bin under CWX_HOME=home.
func e2eCWX(t testing.TB, bin, home, stdin string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CWX_HOME="+home)
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	t.Logf("cwx %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{out.String(), errb.String(), code}
}

// e2eRecorder runs cwx as e2eCWX does, without stdin, and keeps every output, for a test
// that checks a secret is in none of them (secretIn).
type e2eRecorder struct {
	t         testing.TB
	bin, home string
	outputs   []string
}

func (r *e2eRecorder) run(args ...string) cliResult {
	r.t.Helper()
	res := e2eCWX(r.t, r.bin, r.home, "", args...)
	r.outputs = append(r.outputs, res.stdout, res.stderr)
	return res
}

// secretIn is the first output that holds secret, "" when none does.
func (r *e2eRecorder) secretIn(secret string) string {
	for _, o := range r.outputs {
		if strings.Contains(o, secret) {
			return o
		}
	}
	return ""
}

// e2eMust is e2eCWX without stdin for a command that must exit 0.
func e2eMust(t testing.TB, bin, home string, args ...string) cliResult {
	t.Helper()
	r := e2eCWX(t, bin, home, "", args...)
	if r.code != 0 {
		t.Fatalf("cwx %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// e2eTrusted installs the plugin at src, reviews and trusts it, and returns its id.
func e2eTrusted(t testing.TB, bin, home, src string) string {
	t.Helper()
	var res PluginInstallResult
	if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "install", src, "--json").stdout), &res); err != nil {
		t.Fatal(err)
	}
	var rv struct{ Token string }
	if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "review", res.ID, "--json").stdout), &rv); err != nil || rv.Token == "" {
		t.Fatalf("review %s: %v %q", res.ID, err, rv.Token)
	}
	e2eMust(t, bin, home, "plugin", "trust", res.ID, "--token", rv.Token)
	return res.ID
}
