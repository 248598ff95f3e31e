package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestSandboxUnavailableSurfacesEndToEnd runs the real binary with [extension_host] bwrap
// pointing at a missing file (ARCHITECTURE.md, “Sandbox”). Under "prefer" the plugin runs
// and the review, `plugin show` and `host status` all say it is unsandboxed; under
// "required" the call refuses with the reason, `plugin show` and `host status` say the tier
// is refused, and `cwx doctor` prints the fix.
func TestSandboxUnavailableSurfacesEndToEnd(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	probe, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "pid-probe"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			for _, mode := range []string{"prefer", "required"} {
				t.Run(mode, func(t *testing.T) {
					home := e2eHome(t, rt, "sandbox = \""+mode+"\"\nbwrap = \"/nonexistent/bwrap\"\n")
					var res PluginInstallResult
					if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "install", probe, "--json").stdout), &res); err != nil {
						t.Fatal(err)
					}
					note := jsruntime.Unsandboxed
					if mode == "required" {
						note = core.RequiredRefusedNote
					}
					review := e2eMust(t, bin, home, "plugin", "review", res.ID).stdout
					if !strings.Contains(review, "sandbox  "+note) || !strings.Contains(review, "/nonexistent/bwrap") {
						t.Errorf("review does not say %q with the reason:\n%s", note, review)
					}
					e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, probe))
					if show := e2eMust(t, bin, home, "plugin", "show", res.ID).stdout; !strings.Contains(show, "sandbox  "+note) {
						t.Errorf("plugin show does not say %q:\n%s", note, show)
					}
					call := e2eCWX(t, bin, home, "", "tool", "call", "pid_probe", "--input", `{"pid":1}`, "--approve", "auto")
					status := e2eCWX(t, bin, home, "", "host", "status")
					if !strings.Contains(status.stdout, "plugin tier: "+note) {
						t.Errorf("host status does not say %q:\n%s%s", note, status.stdout, status.stderr)
					}
					doctor := e2eCWX(t, bin, home, "", "doctor")
					if mode == "prefer" {
						var out struct {
							OK   bool `json:"ok"`
							Self int  `json:"self"`
						}
						if call.code != ExitOK || json.Unmarshal([]byte(call.stdout), &out) != nil || !out.OK || out.Self == 2 {
							t.Fatalf("unsandboxed call: exit %d %s%s", call.code, call.stdout, call.stderr)
						}
						return
					}
					if call.code != ExitUnavailable || !strings.Contains(call.stderr, "plugin tier requires a verified OS sandbox: ") ||
						!strings.Contains(call.stderr, "/nonexistent/bwrap") {
						t.Errorf("required without bubblewrap: exit %d %s%s", call.code, call.stdout, call.stderr)
					}
					for _, want := range []string{"fix: " + jsruntime.BwrapMissingFix, `plugin tier  refuses to start: sandbox = "required"`} {
						if !strings.Contains(doctor.stdout, want) {
							t.Errorf("doctor lacks %q:\n%s", want, doctor.stdout)
						}
					}
				})
			}
		})
	}
}

// TestSandboxActiveEndToEnd: with bubblewrap present, the real binary's one-shot call runs
// the plugin inside the sandbox (it sees itself as pid 2 of its namespace), and `host status`
// says so.
func TestSandboxActiveEndToEnd(t *testing.T) {
	if _, err := jsruntime.ResolveBwrap("", os.Getenv("PATH"), ""); err != nil {
		if testenv.InCI() {
			t.Fatalf("bubblewrap is missing under CI: %v", err)
		}
		t.Skipf("bubblewrap is not installed: %v", err)
	}
	bin := testenv.BuildCWX(t, "")
	probe, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "pid-probe"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			home := e2eHome(t, want.Get(t), "sandbox = \"required\"\n")
			e2eMust(t, bin, home, "plugin", "enable", e2eTrusted(t, bin, home, probe))
			call := e2eMust(t, bin, home, "tool", "call", "pid_probe", "--input", `{"pid":1}`, "--approve", "auto")
			var out struct {
				Self int `json:"self"`
			}
			if err := json.Unmarshal([]byte(call.stdout), &out); err != nil || out.Self != 2 {
				t.Errorf("the plugin is pid %d (%v), want 2 inside its namespace: %s", out.Self, err, call.stdout)
			}
			if status := e2eMust(t, bin, home, "host", "status").stdout; !strings.Contains(status, "plugin tier: sandboxed: bubblewrap") {
				t.Errorf("host status does not say sandboxed:\n%s", status)
			}
		})
	}
}
