package cli

import (
	"bytes"
	"strings"
	"testing"

	jsruntime "github.com/cwx-dev/cwx/core/runtime"
)

// TestDoctorSandboxFix: under sandbox = "required" without bubblewrap, doctor prints the
// fix and that the plugin tier refuses to start.
func TestDoctorSandboxFix(t *testing.T) {
	rep := DoctorReport{
		Sandbox:     jsruntime.SandboxReport{Name: "bubblewrap", Detail: "bwrap is not on PATH", Fix: jsruntime.BwrapMissingFix},
		SandboxMode: "required", PluginTier: pluginTierContainment("required", false),
	}
	var b bytes.Buffer
	printDoctor(&b, rep)
	for _, want := range []string{"fix: " + jsruntime.BwrapMissingFix, `plugin tier  refuses to start: sandbox = "required"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, b.String())
		}
	}
	if got := pluginTierContainment("off", true); got != jsruntime.Unsandboxed {
		t.Errorf("off = %q", got)
	}
}

// The goldens print what a machine without a working sandbox prints, whatever this machine
// has: the in-process commands see a fixed note (the real binary, in the e2e tests, probes).
func init() {
	unsandboxedNote = func(string) string { return jsruntime.Unsandboxed }
	pluginContainment = func(string, string) string { return "unsandboxed: runs JavaScript with your user permissions" }
}
