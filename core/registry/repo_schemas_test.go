package registry

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// schemaStart finds object schemas written as JavaScript literals: `{ type: 'object'`.
var schemaStart = regexp.MustCompile(`\{\s*type:\s*['"]object['"]`)

// jsLiteral returns the balanced {…} literal at the start of src, or "".
func jsLiteral(src string) string {
	depth := 0
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return src[:i+1]
			}
		}
	}
	return ""
}

// evalLiterals has Node evaluate each literal, with every free identifier that is not a
// global read as 1 (a constant such as MAX_BYTES), and returns each as JSON ("" where it
// could not be evaluated).
const evalLiterals = `
const lits = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const free = new Proxy({}, { has: (_, k) => !(k in globalThis), get: () => 1 });
const out = lits.map((l) => { try { return JSON.stringify(new Function('p', 'with (p) { return (' + l + '); }')(free)); } catch { return ''; } });
process.stdout.write(JSON.stringify(out));
`

// refusedFixtures are the plugin fixtures whose schema must be refused, with what the
// refusal names.
var refusedFixtures = map[string]string{
	"cyclic-schema": "the schema at #/$defs/a ",
	"bad-schema":    "/properties/a/type",
}

// TestRepositorySchemasAdmitted: every object schema the repository's plugins and examples
// publish (the JavaScript literals `{ type: 'object', … }` under testdata/ and examples/, but
// for the DSH census's third-party builds) is admitted, but for the fixtures written to be refused (refusedFixtures).
func TestRepositorySchemasAdmitted(t *testing.T) {
	node := testenv.Node(t)
	var lits, where []string
	for _, dir := range []string{"../../testdata", "../../examples"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				// dsh-census holds third-party builds whose object literals are also result
				// shapes and older-draft schemas; the ones they register as tool input meet the
				// registry for real in core/cli's TestDSHCensus
				if d.Name() == "node_modules" || d.Name() == ".cache" || d.Name() == "dsh-census" {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(path) {
			case ".js", ".mjs", ".cjs", ".ts", ".mts":
			default:
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			src := string(b)
			for _, m := range schemaStart.FindAllStringIndex(src, -1) {
				if lit := jsLiteral(src[m[0]:]); lit != "" {
					lits = append(lits, lit)
					where = append(where, path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(lits) < 30 {
		t.Fatalf("found %d schemas, expected the plugins' and examples' (at least 30)", len(lits))
	}
	in, _ := json.Marshal(lits)
	cmd := exec.Command(node.Path, "-e", evalLiterals)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), testenv.MarkerEnv+"="+testenv.Marker()) // so no process is left
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var schemas []string
	if err := json.Unmarshal(out, &schemas); err != nil || len(schemas) != len(lits) {
		t.Fatalf("node answered %d schemas for %d literals (%v)", len(schemas), len(lits), err)
	}
	checked := 0
	for i, s := range schemas {
		if s == "" {
			t.Logf("%s: not evaluated: %.80s", where[i], strings.Join(strings.Fields(lits[i]), " "))
			continue
		}
		checked++
		_, err := register(t, s)
		switch refused := refusedFixtures[filepath.Base(filepath.Dir(where[i]))]; {
		case refused != "" && (err == nil || !strings.Contains(err.Error(), refused)):
			t.Errorf("%s: %s answered %v, want a refusal naming %s", where[i], s, err, refused)
		case refused == "" && err != nil:
			t.Errorf("%s: %s refused: %v", where[i], s, err)
		}
	}
	if checked < len(lits)*9/10 {
		t.Errorf("only %d of %d schemas evaluated", checked, len(lits))
	}
	t.Logf("%d schemas checked", checked)
}
