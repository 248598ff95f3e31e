package core

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/registry"
	"github.com/cwx-dev/cwx/shared/testenv"
)

func sectionIDs(m *Manager) string {
	var s []string
	for _, p := range m.PromptSections() {
		s = append(s, p.PluginID+"/"+p.ID)
	}
	return strings.Join(s, " ")
}

// TestPromptSectionsLiveWithTheirOwner: sections registered through ctx.prompt and DSH's
// systemPrompt are listed sorted, framed and attributed; withdrawing one drops it; disabling
// the plugin drops the rest.
func TestPromptSectionsLiveWithTheirOwner(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("prompt-sections")
		m := e.open(nil)
		reconcile(t, m)
		if got := sectionIDs(m); got != "fixture-prompt-sections/persona fixture-prompt-sections/style" {
			t.Fatalf("sections %q", got)
		}
		style := m.PromptSections()[1]
		want := "[prompt section `style` of plugin `fixture-prompt-sections`: written by the plugin, not by the system or the person]\n" +
			"> Answer in short sentences.\n> \tCite files by path.\n[end of prompt section `style` of plugin `fixture-prompt-sections`]"
		if style.Wrapped != want {
			t.Fatalf("wrapped:\n%s\nwant:\n%s", style.Wrapped, want)
		}
		if _, err := m.RunCommand(context.Background(), "drop-style", "", CallOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "style withdrawn", func() bool { return sectionIDs(m) == "fixture-prompt-sections/persona" })
		if err := e.store.Disable("fixture-prompt-sections"); err != nil {
			t.Fatal(err)
		}
		reconcile(t, m)
		if got := sectionIDs(m); got != "" {
			t.Fatalf("sections after disable %q", got)
		}
	})
}

// TestStorageThroughTheCoreAndItsQuota: a plugin's ctx.storage keeps a value in its data_dir
// across activations; a storage folder over the quota fails the next activation, naming it.
func TestStorageThroughTheCoreAndItsQuota(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		id := e.install("storage")[0]
		m := e.open(nil)
		reconcile(t, m)
		call := func(in string) map[string]any {
			t.Helper()
			res, err := m.CallTool(context.Background(), "store", input(in), CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(res.Structured, &v); err != nil {
				t.Fatalf("%s: %v", res.Structured, err)
			}
			return v
		}
		if v := call(`{"op":"set","key":"count","value":41}`); v["ok"] != true {
			t.Fatalf("set: %v", v)
		}
		restart := func() {
			t.Helper()
			if err := e.store.Disable(id); err != nil {
				t.Fatal(err)
			}
			reconcile(t, m)
			if err := e.store.Enable(id); err != nil {
				t.Fatal(err)
			}
			reconcile(t, m)
		}
		restart()
		if v := call(`{"op":"get","key":"count"}`); v["value"] != float64(41) {
			t.Fatalf("after a new activation: %v", v)
		}
		dir := filepath.Join(e.store.Layout().DataDir(id), "storage")
		if err := os.WriteFile(filepath.Join(dir, "grown.json"), []byte(`"`+strings.Repeat("x", MaxStorageBytes)+`"`), 0o600); err != nil {
			t.Fatal(err)
		}
		restart()
		o := ownerOf(t, m, id)
		if o.State != registry.Failed || !strings.Contains(o.Reason, "the limit is 1048576") {
			t.Fatalf("owner %s: %s", o.State, o.Reason)
		}
	})
}
