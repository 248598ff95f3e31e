package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProfileArgs checks the profile's fixed parts and that masks follow the trees they hide
// in, a path not there yet masking its nearest existing folder.
func TestProfileArgs(t *testing.T) {
	dir := t.TempDir()
	data, secret := filepath.Join(dir, "data"), filepath.Join(dir, "data", "keys")
	if err := os.MkdirAll(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	p := Profile{Bwrap: "/usr/bin/bwrap", Runtime: "/usr/bin/true", Data: data,
		DenyRead: []string{secret, filepath.Join(data, "later", "x")}}
	got := strings.Join(p.Args(), " ")
	for _, want := range []string{
		"--cap-drop ALL", "--unshare-net", "--unshare-pid", "--die-with-parent", "--tmpfs /tmp",
		"--ro-bind /usr/bin/true /usr/bin/true", "--bind " + data + " " + data,
		"--tmpfs " + secret + " --remount-ro " + secret, "--tmpfs " + data + " --remount-ro " + data,
		"--chdir " + data, "--info-fd 5 --",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "--new-session") { // a new session is a new scheduler autogroup: the exec helper drops the terminal instead
		t.Errorf("profile starts a new session:\n%s", got)
	}
	if strings.Index(got, "--bind "+data) > strings.Index(got, "--tmpfs "+secret) {
		t.Errorf("a mask comes before the tree it hides in:\n%s", got)
	}
	for _, bad := range []string{"/run", "/home", "/root "} {
		if strings.Contains(got, "bind "+bad) {
			t.Errorf("profile mounts %s:\n%s", bad, got)
		}
	}
}

func TestResolveBwrap(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "bwrap")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, configured, path, wd, want, err string
	}{
		{"configured", exe, "", "", exe, ""},
		{"configured missing", filepath.Join(dir, "nope"), dir, "", "", "not an executable file"},
		{"on PATH", "", "relative:" + dir, "", exe, ""},
		{"never the working directory", "", dir, dir, "", "not on PATH"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveBwrap(tc.configured, tc.path, tc.wd)
			if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("ResolveBwrap = %q, %v; want %q, %q", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestProbeSandbox runs the real probe when bubblewrap is installed.
func TestProbeSandbox(t *testing.T) {
	bw, err := ResolveBwrap("", os.Getenv("PATH"), "")
	if err != nil {
		t.Skip("bubblewrap is not installed")
	}
	if why := ProbeSandbox(context.Background(), Profile{Bwrap: bw, Runtime: "/usr/bin/true"}, 10*time.Second); why != "" {
		t.Fatalf("probe failed: %s", why)
	}
	if why := ProbeSandbox(context.Background(), Profile{Bwrap: bw, Runtime: "/nonexistent/node"}, 10*time.Second); why == "" {
		t.Fatal("probe of a missing runtime succeeded")
	}
}

func TestCheckSandboxMissing(t *testing.T) {
	rep := CheckSandbox(context.Background(), "/nonexistent/bwrap", "", "", "/usr/bin/true", nil)
	if rep.Works || rep.Present || rep.Fix != BwrapMissingFix || !strings.Contains(rep.Detail, "/nonexistent/bwrap") {
		t.Fatalf("report = %+v", rep)
	}
}

func TestSandboxFix(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"bwrap: No permissions to creating new namespace", "kernel.apparmor_restrict_unprivileged_userns=0"},
		{"bwrap: setting up uid map: Permission denied", "kernel.unprivileged_userns_clone=1"},
		{"bwrap: execvp x: No such file or directory", "bwrap --ro-bind / / true"},
	} {
		if got := SandboxFix(tc.stderr); !strings.Contains(got, tc.want) {
			t.Errorf("SandboxFix(%q) = %q, want it to contain %q", tc.stderr, got, tc.want)
		}
	}
}
