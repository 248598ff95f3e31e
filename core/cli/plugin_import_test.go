package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/dshbundle"
)

// copyDir copies the regular files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// dshBaseBundle is the monorepo's real dsh-base bundle package (testdata/dsh-bundle/base)
// carrying four census fixtures its rows name under node_modules, as a packed bundle with
// bundled dependencies would.
func dshBaseBundle(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dsh-base")
	copyDir(t, "../../testdata/dsh-bundle/base", dir)
	for _, p := range []string{"llm-retry", "spill-policy", "skill-badge", "tool-todo"} {
		copyDir(t, "../../testdata/dsh-census/"+p, filepath.Join(dir, "node_modules", "@deepseek-ai", "dsh-"+p))
	}
	return dir
}

func importPreview(t *testing.T, dir string) PluginImportResult {
	t.Helper()
	var out PluginImportResult
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "import", "dsh", dir, "--json")), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPluginImportDSH: the real dsh-base bundle is previewed (every row listed), installed
// by the previewed hash only, and what it carries lands disabled and untrusted.
func TestPluginImportDSH(t *testing.T) {
	pluginHome(t)
	installJSON(t, "../../testdata/dsh-census/shell-env")
	dir := dshBaseBundle(t)

	pv := importPreview(t, dir)
	if len(pv.Bundles) != 1 || pv.Bundles[0].Name != "@deepseek-ai/dsh-base" || pv.Bundles[0].Version != "0.1.0-rc.8" || len(pv.Rows) != 78 {
		t.Fatalf("preview: %+v, %d rows", pv.Bundles, len(pv.Rows))
	}
	rows := map[string]dshbundle.Row{}
	for _, r := range pv.Rows {
		rows[r.ID] = r
	}
	for id, kind := range map[string]string{"llm-retry": dshbundle.SourceBundled, "spill-policy": dshbundle.SourceBundled,
		"skill-badge": dshbundle.SourceBundled, "shell-env": dshbundle.SourceInstalled, "timer": dshbundle.SourceMissing,
		"tool-subagent-list-agents": dshbundle.SourceUnsupported} {
		if got := rows[id].Source; got == nil || got.Kind != kind {
			t.Errorf("row %s: source %+v, want %s", id, got, kind)
		}
	}
	if rows["skill-badge"].Disabled != "yes" || rows["tool-bash"].Disabled != "!!js process.platform === 'win32'" {
		t.Errorf("disabled: %q %q", rows["skill-badge"].Disabled, rows["tool-bash"].Disabled)
	}

	// The text review lists every row with its plugin, and ends with the hash to install.
	text := mustCLI(t, "plugin", "import", "dsh", dir)
	for _, r := range pv.Rows {
		if !strings.Contains(text, "  "+r.ID+"  "+r.Name+"\n") {
			t.Errorf("the review does not list row %s (%s)", r.ID, r.Name)
		}
	}
	for _, want := range []string{
		"bundle   @deepseek-ai/dsh-base 0.1.0-rc.8\n",
		"rows     78 (4 bundled, 1 installed, 72 missing, 1 unsupported; 5 disabled)\n",
		`config    {"maxInlineBytes":50000}`,
		"source    bundled node_modules/@deepseek-ai/dsh-llm-retry, closure sha256:",
		"source    installed @deepseek-ai/dsh-shell-env 0.1.0-rc.8",
		"composition sha256:" + pv.SHA256 + "\n",
		"cwx plugin import dsh " + dir + " --hash sha256:" + pv.SHA256 + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the review lacks %q:\n%s", want, text)
		}
	}

	// A byte changed after the preview is refused, and nothing is installed.
	lib := filepath.Join(dir, "node_modules/@deepseek-ai/dsh-llm-retry/lib/index.js")
	orig, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, append(append([]byte{}, orig...), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPluginCLI(t, "plugin", "import", "dsh", dir, "--hash", "sha256:"+pv.SHA256)
	if r.code != ExitInvalid || !strings.Contains(r.stderr, "changed since the preview") {
		t.Fatalf("changed bytes: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if list := mustCLI(t, "plugin", "list"); strings.Contains(list, "dsh-llm-retry") {
		t.Fatalf("installed after a refusal:\n%s", list)
	}
	if err := os.WriteFile(lib, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	// The previewed hash installs exactly that composition.
	var res PluginImportResult
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "import", "dsh", dir, "--hash", "sha256:"+pv.SHA256, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]PluginImportedPlugin{}
	for _, p := range res.Installed {
		got[p.Package] = p
	}
	for _, id := range []string{"@deepseek-ai/dsh-llm-retry", "@deepseek-ai/dsh-spill-policy"} {
		p := got[id]
		if p.Install == nil || p.Install.Status != "not trusted" || p.Install.Closure != rows[strings.TrimPrefix(id, "@deepseek-ai/dsh-")].Source.Closure {
			t.Errorf("%s: %+v %+v", id, p, p.Install)
		}
	}
	if p := got["@deepseek-ai/dsh-skill-badge"]; p.Install != nil || p.Skipped != "disabled" {
		t.Errorf("skill-badge (disabled): %+v", p)
	}
	// a package the store refuses is refused by name, and the others still install
	if p := got["@deepseek-ai/dsh-tool-todo"]; p.Install != nil || !strings.Contains(p.Skipped, "refused at install: ") || !strings.Contains(p.Skipped, "zod") {
		t.Errorf("tool-todo (refused): %+v", p)
	}
	if p := got["@deepseek-ai/dsh-shell-env"]; p.Install != nil || !strings.Contains(p.Skipped, "installed already") {
		t.Errorf("shell-env (installed): %+v", p)
	}

	// Installing again is a no-op; the text says what each row got and what comes next.
	out := mustCLI(t, "plugin", "import", "dsh", dir, "--hash", pv.SHA256)
	for _, want := range []string{
		"composition sha256:" + pv.SHA256 + " of @deepseek-ai/dsh-base 0.1.0-rc.8, as previewed\n",
		"@deepseek-ai/dsh-llm-retry 0.1.0-rc.8 is already installed with these bytes (not trusted) (row llm-retry)\n",
		"not installed @deepseek-ai/dsh-skill-badge (row skill-badge): disabled\n",
		"[plugins.\"@deepseek-ai/dsh-spill-policy\".config]\nmaxInlineBytes = 50000\n",
		"next: cwx plugin review @deepseek-ai/dsh-llm-retry\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the import lacks %q:\n%s", want, out)
		}
	}
	// and each installed plugin is reviewed as any plugin
	if tok := reviewToken(t, "@deepseek-ai/dsh-llm-retry"); !strings.HasPrefix(tok, "rv1-") {
		t.Fatalf("review token %q", tok)
	}
}

func TestPluginImportDSHRefusesWhatIsNoBundle(t *testing.T) {
	pluginHome(t)
	r := runPluginCLI(t, "plugin", "import", "dsh", "../../testdata/dsh-census/shell-env")
	if r.code != ExitInvalid || !strings.Contains(r.stderr, "declares no dsh.bundle.patch") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestPluginImportDSHProfile layers the real dsh-headless bundle over dsh-base, as DSH's
// headless profile does: its overrides change base rows, its inserts add rows.
func TestPluginImportDSHProfile(t *testing.T) {
	pluginHome(t)
	base := dshBaseBundle(t)
	headless := "../../testdata/dsh-bundle/headless"
	var pv PluginImportResult
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "import", "dsh", base, headless, "--json")), &pv); err != nil {
		t.Fatal(err)
	}
	if len(pv.Bundles) != 2 || pv.Bundles[1].Name != "@deepseek-ai/dsh-headless" || len(pv.Rows) != 81 || len(pv.Warnings) != 0 {
		t.Fatalf("preview: %+v, %d rows, warnings %+v", pv.Bundles, len(pv.Rows), pv.Warnings)
	}
	rows := map[string]dshbundle.Row{}
	for _, r := range pv.Rows {
		rows[r.ID] = r
	}
	if rows["hmr"].Disabled != "yes" || !strings.Contains(compactJSON(rows["system-prompt"].Config), "You are a coding agent") {
		t.Errorf("headless overrides: hmr %+v, system-prompt %+v", rows["hmr"], rows["system-prompt"].Config)
	}
	if s := rows["headless-runner"].Source; s == nil || s.Kind != dshbundle.SourceUnsupported || !strings.Contains(s.Why, "bundle package itself") {
		t.Errorf("headless-runner: %+v", s)
	}
	if !strings.Contains(compactJSON(rows["headless-runner"].Other), `"inject":["headlessStartup"]`) {
		t.Errorf("headless-runner other: %+v", rows["headless-runner"].Other)
	}
	only := importPreview(t, base)
	if only.SHA256 == pv.SHA256 {
		t.Fatal("a layer more kept the hash")
	}
	text := mustCLI(t, "plugin", "import", "dsh", base, headless)
	for _, want := range []string{"bundle   @deepseek-ai/dsh-headless 0.1.0-rc.8\n", "  headless-runner  @deepseek-ai/dsh-headless\n",
		"--hash sha256:" + pv.SHA256 + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	out := mustCLI(t, "plugin", "import", "dsh", base, headless, "--hash", pv.SHA256)
	if !strings.Contains(out, "of @deepseek-ai/dsh-base 0.1.0-rc.8 + @deepseek-ai/dsh-headless 0.1.0-rc.8, as previewed\n") ||
		!strings.Contains(out, "installed @deepseek-ai/dsh-llm-retry 0.1.0-rc.8, disabled and not trusted (row llm-retry)\n") {
		t.Errorf("import:\n%s", out)
	}
	// the hash of one composition does not install another
	r := runPluginCLI(t, "plugin", "import", "dsh", base, "--hash", pv.SHA256)
	if r.code != ExitInvalid || !strings.Contains(r.stderr, "changed since the preview") {
		t.Fatalf("another composition: exit %d %s", r.code, r.stderr)
	}
}
