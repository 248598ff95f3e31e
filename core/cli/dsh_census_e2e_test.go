package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// The DSH census (testdata/dsh-census/): census.json lists every package of the DSH monorepo
// whose main entry declares `inject`, and each headless one is a fixture built from source by
// census.mjs. TestDSHCensus installs, reviews, trusts and enables every fixture with the real
// cwx binary on Node and on Bun, runs the scripted call of calls.json on those that activate,
// and sorts each into one of three outcomes:
//
//   - runs: it activated and its scripted call answered with the expected text;
//   - refused: install or activation failed naming what is missing (a dependency, a service,
//     a method, a module, an event, or a registration the core refused with its reason);
//   - broken: anything else (a generic error, a hang, an activation without a scripted call).
//
// It renders README.md's table from census.json and the outcomes and fails when the committed
// README.md differs (CWX_UPDATE_GOLDEN=1, or `make dsh-census`, rewrites it), and fails on any
// broken fixture.

type censusDoc struct {
	Sources []struct {
		Repository string `json:"repository"`
		Kind       string `json:"kind"`
		Commit     string `json:"commit"`
		Why        string `json:"why"`
	} `json:"sources"`
	Licence      string       `json:"licence"`
	HeadlessRule string       `json:"headless_rule"`
	Packages     []censusPkg  `json:"packages"`
	calls        censusScript // from calls.json
	// reviewReads is what `cwx plugin review` reads statically from each fixture's built entry
	// (nil: not statically visible), beside what census.mjs read from its TypeScript source.
	reviewReads map[string][]string
}

type censusPkg struct {
	Dir      string   `json:"dir"`
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	License  string   `json:"license"`
	Source   string   `json:"source"` // the repository it was read from
	Commit   string   `json:"commit"`
	Inject   []string `json:"inject"`
	Headless bool     `json:"headless"`
	Why      string   `json:"why"`
	Fixture  string   `json:"fixture"`
}

type censusScript struct {
	Fixtures map[string]censusCall `json:"fixtures"`
}

type censusCall struct {
	Config  map[string]any  `json:"config"`
	Tool    string          `json:"tool"`
	Input   json.RawMessage `json:"input"`
	Command string          `json:"command"`
	Line    string          `json:"line"`
	Expect  string          `json:"expect"` // the answer (stdout, then stderr) contains it
	Exit    int             `json:"exit"`   // the exit status the answer comes with
	Note    string          `json:"note"`   // what the answer shows, for README.md
}

// censusOutcome is one fixture on one runtime.
type censusOutcome struct {
	Kind   string // runs, refused, broken
	Detail string
}

func readCensus(t *testing.T, dir string) censusDoc {
	t.Helper()
	var doc censusDoc
	for name, v := range map[string]any{"census.json": &doc, "calls.json": &doc.calls} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v (run `make dsh-census`)", err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for f := range doc.calls.Fixtures {
		if !doc.hasFixture(f) {
			t.Fatalf("calls.json scripts %q, which is no fixture of census.json", f)
		}
	}
	doc.reviewReads = map[string][]string{}
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		if de.IsDir() && !doc.hasFixture(de.Name()) {
			t.Errorf("testdata/dsh-census/%s is no fixture of census.json (run `make dsh-census`)", de.Name())
		}
	}
	for _, p := range doc.Packages {
		if !p.Headless {
			continue
		}
		banner := fmt.Sprintf("from %s@%.12s:", p.Source, p.Commit)
		for _, f := range []string{"package.json", "LICENSE", "lib/index.js"} {
			if _, err := os.Stat(filepath.Join(dir, p.Fixture, f)); err != nil {
				t.Errorf("fixture %s: %v (run `make dsh-census`)", p.Fixture, err)
			}
		}
		js, err := os.ReadFile(filepath.Join(dir, p.Fixture, "lib", "index.js"))
		if err != nil {
			continue
		}
		if !strings.Contains(string(js), banner+p.Dir+" ") {
			t.Errorf("fixture %s was not built from %s%s", p.Fixture, banner, p.Dir)
		}
		doc.reviewReads[p.Fixture] = plugins.StaticInjects(js)
	}
	return doc
}

func (d censusDoc) hasFixture(f string) bool {
	for _, p := range d.Packages {
		if p.Headless && p.Fixture == f {
			return true
		}
	}
	return false
}

// censusConfigTOML renders the scripted configs as config.toml tables (scalars only); the
// string "$PAYLOAD" stands for payload.
func censusConfigTOML(t *testing.T, doc censusDoc, payload string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range doc.Packages {
		c, ok := doc.calls.Fixtures[p.Fixture]
		if !p.Headless || !ok || len(c.Config) == 0 {
			continue
		}
		fmt.Fprintf(&b, "[plugins.%q.config]\n", p.Name)
		keys := make([]string, 0, len(c.Config))
		for k := range c.Config {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch v := c.Config[k].(type) {
			case string:
				js, _ := json.Marshal(strings.ReplaceAll(v, "$PAYLOAD", payload))
				fmt.Fprintf(&b, "%s = %s\n", k, js)
			case bool, float64:
				js, _ := json.Marshal(v)
				fmt.Fprintf(&b, "%s = %s\n", k, js)
			default:
				t.Fatalf("calls.json: config %s.%s is not a scalar", p.Fixture, k)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// censusPayload writes the smallest payload @deepseek-ai/dsh-tool-workspace-dependencies
// accepts for this machine (runtime.json and the Python folders it points into) in dir and
// returns dir.
func censusPayload(t *testing.T, dir string) string {
	t.Helper()
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	manifest := fmt.Sprintf(`{"desktopVersion":"1.0.0","platform":%q,"arch":%q,"python":"3.12.4","pythonPackages":{"numpy":"2.1.0"}}`, runtime.GOOS, arch)
	plugintest.WriteTree(t, dir, map[string]string{
		"runtime.json":                    manifest,
		"dependencies/python/bin/python3": "",
		"dependencies/python/lib/python3.12/site-packages/.keep": "",
	})
	return dir
}

// refusedByName matches a failure that names what is missing or refused.
var refusedByName = []*regexp.Regexp{
	regexp.MustCompile("requires `[^`]+`, which (cwx|the cwx extension host) does not provide"),
	regexp.MustCompile("`[A-Za-z]+\\.[A-Za-z]+` is not provided by cwx"),
	regexp.MustCompile("may not provide core service `[^`]+`"),
	regexp.MustCompile("cannot listen to `[^`]+`: the cwx extension host never emits it"),
	regexp.MustCompile("^[a-z_]+ `[^`]+` refused: "),
	regexp.MustCompile("runtime dependencies are neither bundled in its node_modules nor provided by cwx: [^ ]"),
	regexp.MustCompile("does not provide an export named '[^']+'"),
}

// installRefusal is the start of `cwx plugin install`'s refusal: "cwx: <path>: refused: ".
var installRefusal = regexp.MustCompile(`^cwx: .*?: refused: `)

var errorPrefix = regexp.MustCompile(`^(?:[A-Z][A-Za-z]*Error|Diagnostic): `)

func classifyFailure(reason string) censusOutcome {
	reason = strings.TrimSpace(errorPrefix.ReplaceAllString(strings.TrimSpace(reason), ""))
	for _, re := range refusedByName {
		if re.MatchString(reason) {
			return censusOutcome{"refused", reason}
		}
	}
	return censusOutcome{"broken", reason}
}

func TestDSHCensus(t *testing.T) {
	root := plugintest.RepoRoot(t)
	dir := filepath.Join(root, "testdata", "dsh-census")
	doc := readCensus(t, dir)
	bin := testenv.BuildCWX(t, "")
	results := map[string]map[string]censusOutcome{} // runtime → fixture → outcome
	var names []string
	for _, l := range testenv.Runtimes() {
		names = append(names, l.Name)
		t.Run(l.Name, func(t *testing.T) {
			rt := l.Get(t)
			home := e2eHome(t, rt, "")
			// the sandbox shows a plugin $CWX_HOME/extension-host/data and no other folder of the home
			payload := censusPayload(t, filepath.Join(home, "extension-host", "data", "census-payload"))
			conf, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = conf.WriteString(censusConfigTOML(t, doc, payload))
			if cerr := conf.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			results[l.Name] = runCensus(t, bin, home, dir, doc)
		})
	}
	for _, n := range names {
		if results[n] == nil {
			if testenv.InCI() {
				t.Fatalf("the census did not run on %s", n)
			}
			t.Skipf("the census did not run on %s, so README.md is not compared", n)
		}
	}
	for _, n := range names {
		for f, o := range results[n] {
			if o.Kind == "broken" {
				t.Errorf("%s is broken on %s: %s", f, n, o.Detail)
			}
		}
	}
	compat, err := plugins.ParseCompat(jshost.CompatibilityJSON())
	if err != nil {
		t.Fatal(err)
	}
	checkCensusReadme(t, filepath.Join(dir, "README.md"), renderCensus(doc, compat, names, results))
}

// runCensus sorts every fixture of doc on one runtime.
func runCensus(t *testing.T, bin, home, dir string, doc censusDoc) map[string]censusOutcome {
	t.Helper()
	out := map[string]censusOutcome{}
	ids := map[string]string{} // fixture → plugin id
	for _, p := range doc.Packages {
		if !p.Headless {
			continue
		}
		r := e2eCWX(t, bin, home, "", "plugin", "install", filepath.Join(dir, p.Fixture), "--json")
		if r.code != 0 {
			o := classifyFailure(installRefusal.ReplaceAllString(strings.TrimSpace(r.stderr), ""))
			o.Detail = "install: " + o.Detail
			out[p.Fixture] = o
			continue
		}
		var res PluginInstallResult
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("install %s: %v\n%s", p.Fixture, err, r.stdout)
		}
		var rv struct{ Token string }
		if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "review", res.ID, "--json").stdout), &rv); err != nil || rv.Token == "" {
			t.Fatalf("review %s: %v %q", res.ID, err, rv.Token)
		}
		e2eMust(t, bin, home, "plugin", "trust", res.ID, "--token", rv.Token)
		e2eMust(t, bin, home, "plugin", "enable", res.ID)
		ids[p.Fixture] = res.ID
	}
	var rl PluginReloadResult
	if err := json.Unmarshal([]byte(e2eMust(t, bin, home, "plugin", "reload", "--json").stdout), &rl); err != nil {
		t.Fatal(err)
	}
	state := map[string]PluginReloadItem{}
	for _, p := range rl.Plugins {
		state[p.ID] = p
	}
	for f, id := range ids {
		s, ok := state[id]
		switch {
		case !ok:
			out[f] = censusOutcome{"broken", "missing from `plugin reload`"}
		case s.State == "active":
			out[f] = censusCallOutcome(t, bin, home, doc.calls.Fixtures[f])
		case s.State == "failed":
			out[f] = classifyFailure(s.Reason)
		default:
			out[f] = censusOutcome{"broken", fmt.Sprintf("%s: %s", s.State, s.Reason)}
		}
	}
	return out
}

// censusCallOutcome runs an active fixture's scripted call.
func censusCallOutcome(t *testing.T, bin, home string, c censusCall) censusOutcome {
	t.Helper()
	var args []string
	var what string
	switch {
	case c.Tool != "":
		input := string(c.Input)
		if input == "" {
			input = "{}"
		}
		args = []string{"tool", "call", c.Tool, "--input", input, "--approve", "auto"}
		what = "tool `" + c.Tool + "`"
	case c.Command != "":
		args = []string{"command", "run", c.Command}
		if c.Line != "" {
			args = append(args, c.Line)
		}
		what = "command `/" + c.Command + "`"
	default:
		return censusOutcome{"broken", "activates, but calls.json has no scripted call for it"}
	}
	r := e2eCWX(t, bin, home, "", args...)
	if c.Expect == "" || r.code != c.Exit || !strings.Contains(r.stdout+r.stderr, c.Expect) {
		return censusOutcome{"broken", fmt.Sprintf("%s: exit %d, %q %q", what, r.code, firstLine(r.stdout), firstLine(r.stderr))}
	}
	detail := what + " answers"
	if c.Note != "" {
		detail += " (" + c.Note + ")"
	}
	return censusOutcome{"runs", detail}
}

// firstLine is s's line that carries cwx's own error ("cwx: ..."), else its first non-empty
// line (the extension hosts log other plugins' lines too), at most 300 bytes of it.
func firstLine(s string) string {
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "cwx: ") {
			lines = []string{l}
			break
		}
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return l
		}
	}
	return ""
}

// renderCensus is README.md: the source, the rule, the counts and one row per package.
func renderCensus(doc censusDoc, compat *plugins.Compat, runtimes []string, results map[string]map[string]censusOutcome) []byte {
	var b strings.Builder
	headless, counts := 0, map[string]int{}
	for _, p := range doc.Packages {
		if p.Headless {
			headless++
			counts[results[runtimes[0]][p.Fixture].Kind]++
		}
	}
	fmt.Fprintf(&b, "# DSH census\n\n")
	fmt.Fprintf(&b, "Generated by `make dsh-census` (census.mjs, then the census test `TestDSHCensus` in\n"+
		"core/cli/dsh_census_e2e_test.go); do not edit. The test fails when this table and a run disagree.\n\n")
	fmt.Fprintf(&b, "Sources (sources.json; a package is taken from the first that has it; licence %s, each fixture keeps the LICENSE):\n\n", doc.Licence)
	for _, src := range doc.Sources {
		fmt.Fprintf(&b, "- `%s` (%s) at `%s`: %s\n", src.Repository, src.Kind, src.Commit, src.Why)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "Headless: %s.\n\n", doc.HeadlessRule)
	fmt.Fprintf(&b, "%d packages declare `inject` in their main entry; %d are headless, built from source into the\n"+
		"fixtures beside this file, and run on %s: %d run, %d are refused by name, %d are broken.\n\n",
		len(doc.Packages), headless, strings.Join(runtimes, " and "), counts["runs"], counts["refused"], counts["broken"])
	fmt.Fprintf(&b, "A package refused at install declares runtime dependencies it does not bundle (cwx never fetches:\n"+
		"a plugin ships its dependencies); one refused at activation names the DSH module, service, method or\n"+
		"registration cwx does not provide; for a refused service it gives the reason of the compatibility\n"+
		"table (nodeshim/jshost/src/dsh/compatibility.json, sha256 `%s`).\n\n", compat.SHA256)
	var differ []string
	for _, p := range doc.Packages {
		if !p.Headless {
			continue
		}
		want := append([]string(nil), p.Inject...)
		sort.Strings(want)
		got, ok := doc.reviewReads[p.Fixture]
		if ok && strings.Join(got, ",") != strings.Join(want, ",") {
			reads := "nothing statically visible"
			if got != nil {
				reads = "`" + strings.Join(got, "`, `") + "`"
			}
			differ = append(differ, fmt.Sprintf("%s (review: %s)", p.Fixture, reads))
		}
	}
	if len(differ) > 0 {
		fmt.Fprintf(&b, "Where `cwx plugin review` reads a fixture's injects otherwise than its source declares them: %s.\n\n", strings.Join(differ, "; "))
	}
	fmt.Fprintf(&b, "| package | version | injects | headless | %s | why |\n", strings.Join(runtimes, " | "))
	fmt.Fprintf(&b, "| --- | --- | --- | --- |%s --- |\n", strings.Repeat(" --- |", len(runtimes)))
	for _, p := range doc.Packages {
		name := p.Name
		if len(doc.Sources) > 0 && p.Source != doc.Sources[0].Repository {
			name += fmt.Sprintf(" (from %s)", p.Source)
		}
		inj := "(none)"
		if len(p.Inject) > 0 {
			inj = "`" + strings.Join(p.Inject, "`, `") + "`"
		}
		if !p.Headless {
			fmt.Fprintf(&b, "| %s | %s | %s | no |%s %s |\n", name, p.Version, inj, strings.Repeat(" — |", len(runtimes)), p.Why)
			continue
		}
		var cells []string
		first := results[runtimes[0]][p.Fixture].Detail
		why := first
		for _, rt := range runtimes {
			o := results[rt][p.Fixture]
			cells = append(cells, o.Kind)
			if o.Detail != first {
				why += fmt.Sprintf(" (%s: %s)", rt, o.Detail)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | yes | %s | %s |\n", name, p.Version, inj, strings.Join(cells, " | "), strings.ReplaceAll(why, "|", `\|`))
	}
	return []byte(b.String())
}

func checkCensusReadme(t *testing.T, path string, got []byte) {
	t.Helper()
	if os.Getenv("CWX_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with `make dsh-census`)", err)
	}
	if string(got) != string(want) {
		t.Errorf("testdata/dsh-census/README.md disagrees with this run (rewrite it with `make dsh-census` if the change is meant):\n--- run\n%s\n--- README.md\n%s", got, want)
	}
}
