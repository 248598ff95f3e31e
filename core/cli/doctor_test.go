package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/config"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// goldenDir holds the CLI goldens (repository testdata/cli), made absolute before any test
// changes the working directory.
var goldenDir = mustAbs("../../testdata/cli")

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return abs
}

// checkGolden compares got with testdata/cli/<name>; CWX_UPDATE_GOLDEN=1 rewrites it.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if os.Getenv("CWX_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record it with CWX_UPDATE_GOLDEN=1)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// fakeDoctorChecks replaces the machine-dependent probes for the test's duration.
func fakeDoctorChecks(t *testing.T) {
	t.Helper()
	old := doctorChecks
	t.Cleanup(func() { doctorChecks = old })
	doctorChecks.memoryCap = func(_ context.Context, _ jsruntime.Runtime, limit uint64) jsruntime.MemoryCapReport {
		return jsruntime.MemoryCapReport{Mechanism: "RLIMIT_DATA", LimitBytes: limit, Enforced: true, Detail: "fake: enforced"}
	}
	doctorChecks.sandbox = func(context.Context, string, config.ExtensionHost, string) jsruntime.SandboxReport {
		return jsruntime.SandboxReport{Name: "bubblewrap", Detail: "fake: bwrap not found"}
	}
	doctorChecks.kernel = func(config.ExtensionHost) *DoctorKernel {
		return &DoctorKernel{UID: 2000000000, Dropped: true, ReadOnly: []string{"/proc/sys", "/proc/irq"},
			Masked: []string{"/proc/kallsyms"}, Filter: "fake: seccomp filter"}
	}
}

func writeScript(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// runCLI runs cwx with args and returns exit code, stdout and stderr.
func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestDoctorGoldens(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		config   string
		bundle   string // "materialized" or "tampered": the state of $CWX_HOME's copy
		scripts  map[string]string
		pathDirs []string
		code     int
		stderr   string
	}{
		{
			name:     "doctor-json-ok.golden",
			args:     []string{"doctor", "--json"},
			bundle:   "materialized",
			scripts:  map[string]string{"old/node": "echo v20.20.2", "new/node": `case "$1" in --no-experimental-ffi) exit 9;; esac; echo v22.23.5`},
			pathDirs: []string{"old", "new"},
		},
		{
			name:   "doctor-json-auto-fallback.golden",
			args:   []string{"doctor", "--json"},
			config: "[extension_host]\nruntime = \"auto\"\nmemory_limit_mib = 512\n",
			scripts: map[string]string{"a/bun": "echo 1.3.9", "a/node": "echo v24.1.0",
				"wd/bin/node": "echo v24.1.0", "pkg/node_modules/.bin/node": "echo v24.1.0"},
			pathDirs: []string{"wd/bin", "pkg/node_modules/.bin", "a"},
		},
		{
			name:     "doctor-json-no-runtime.golden",
			args:     []string{"doctor", "--json"},
			scripts:  map[string]string{"old/node": "echo v20.20.2", "odd/node": "echo v23.4.0"},
			pathDirs: []string{"old", "odd"},
			code:     ExitUnavailable,
			stderr: "cwx: no usable Node.js runtime; $ROOT/old/node: v20.20.2 is below the 22.19 floor; $ROOT/odd/node: " +
				"v23.4.0 is outside ^22.19 || >=24 (Node 23 is not supported). Fix: install Node ^22.19 || >=24 (in a cwx checkout, " +
				"`make tools` puts one at .tools/bin/node) and set `[extension_host] node = \"/path/to/node\"` in $ROOT/home/config.toml\n",
		},
		{
			name:     "doctor-text-ok.golden",
			args:     []string{"doctor"},
			scripts:  map[string]string{"old/node": "echo v20.20.2", "new/node": "echo v22.23.5"},
			pathDirs: []string{"old", "new"},
		},
		{
			name:    "doctor-text-configured-bun.golden",
			args:    []string{"doctor"},
			config:  "[extension_host]\nruntime = \"bun\"\nbun = \"$ROOT/cfg/bun\"\n",
			bundle:  "tampered",
			scripts: map[string]string{"cfg/bun": "echo 1.3.0", "a/bun": "echo 1.4.5"},
			code:    ExitUnavailable,
			stderr: "cwx: no usable Bun runtime; $ROOT/cfg/bun: 1.3.0 is below the 1.4.0 floor. Fix: point `[extension_host] bun` in " +
				"$ROOT/home/config.toml at Bun >=1.4.0 (`make tools` puts one at .tools/bin/bun), or remove it to search PATH\n",
			pathDirs: []string{"a"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakeDoctorChecks(t)
			root := t.TempDir()
			for p, body := range tc.scripts {
				writeScript(t, filepath.Join(root, filepath.Dir(p)), filepath.Base(p), body)
			}
			var path []string
			for _, d := range tc.pathDirs {
				path = append(path, filepath.Join(root, d))
			}
			home := filepath.Join(root, "home")
			if tc.config != "" {
				if err := os.MkdirAll(home, 0o700); err != nil {
					t.Fatal(err)
				}
				cfg := strings.ReplaceAll(tc.config, "$ROOT", root)
				if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			prepareBundle(t, home, tc.bundle)
			t.Setenv("CWX_HOME", home)
			t.Setenv("PATH", strings.Join(path, ":"))
			if err := os.MkdirAll(filepath.Join(root, "wd"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(filepath.Join(root, "wd"))
			code, stdout, stderr := runCLI(tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if got := strings.ReplaceAll(stderr, root, "$ROOT"); got != tc.stderr {
				t.Errorf("stderr = %q\nwant     %q", got, tc.stderr)
			}
			checkGolden(t, tc.name, []byte(normalizeDoctor(stdout, root)))
		})
	}
}

// normalizeDoctor replaces the volatile parts of doctor's output: the test's temporary
// root and the embedded bundle's digest (it changes with every host build).
func normalizeDoctor(out, root string) string {
	out = strings.ReplaceAll(out, root, "$ROOT")
	return strings.ReplaceAll(out, bundle.EmbeddedSHA256(), "$BUNDLE_SHA256")
}

// prepareBundle puts $CWX_HOME's bundle copy in the named state.
func prepareBundle(t *testing.T, home, state string) {
	t.Helper()
	if state == "" {
		return
	}
	m, err := bundle.Materialize(home, bundle.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	if state == "tampered" {
		lic := filepath.Join(m.Dir, bundle.LicensesName)
		if err := os.Chmod(lic, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDoctorBadConfigExitsInvalid(t *testing.T) {
	fakeDoctorChecks(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[extension_host]\nnod = \"/x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CWX_HOME", home)
	code, stdout, stderr := runCLI("doctor")
	if code != ExitInvalid || stdout != "" || !strings.Contains(stderr, "extension_host.nod") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDoctorAcceptance is the acceptance scenario with the real checks: from a
// temporary working directory with the machine's Node 20 first on PATH and the pinned
// Node 22 after it, doctor rejects the first as below the floor and picks the second.
func TestDoctorAcceptance(t *testing.T) {
	node := testenv.Node(t)
	if _, err := os.Stat("/usr/bin/node"); err != nil {
		t.Fatalf("the scenario needs the machine's /usr/bin/node (Node 20): %v", err)
	}
	t.Setenv("CWX_HOME", filepath.Join(t.TempDir(), "home"))
	t.Setenv("PATH", "/usr/bin:"+filepath.Dir(node.Path))
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCLI("doctor")
	t.Logf("cwx doctor:\n%s%s", stdout, stderr)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"runtime      node v22.", "at " + node.Path + " (from PATH)",
		"rejected     /usr/bin/node (PATH): v20.20.2 is below the 22.19 floor",
		"memory cap   RLIMIT_DATA 1024 MiB enforced",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
