package cli

import "github.com/cwx-dev/cwx/core"

// unsandboxedNote is what a review and `plugin show` print about the plugin tier's sandbox:
// the unsandboxed sentence (with why, when the probe failed) or "" when plugins run in
// bubblewrap (ARCHITECTURE.md, “Sandbox”). A variable so that tests can fix it.
var unsandboxedNote = func(home string) string {
	st := core.SandboxFor(home)
	switch {
	case st.Active:
		return ""
	case st.Problem != "":
		return st.Note + " (" + oneLine(st.Problem) + ")"
	default:
		return st.Note
	}
}

// pluginContainment says how a plugin is contained on this machine (core.Containment);
// tests give a fixed line, as for unsandboxedNote.
var pluginContainment = core.Containment
