package dshbundle

import (
	"encoding/json"
	"strings"
	"testing"
)

// composeYAML parses each text as one layer and composes them.
func composeYAML(t *testing.T, layers ...string) ([]any, []Warning) {
	t.Helper()
	var all []layerPatch
	for li, l := range layers {
		ps, err := ParsePatches("layer.yml", []byte(l))
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			all = append(all, layerPatch{layer: li, index: i + 1, p: p})
		}
	}
	tree, warns, err := compose(all)
	if err != nil {
		t.Fatal(err)
	}
	return tree, warns
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(plain(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestComposeLiteralRows(t *testing.T) {
	tree, warns := composeYAML(t, `
- insert:
    - id: a
      name: '@x/a'
      config: {n: 1}
    - id: b
      name: '@x/b'
`)
	if len(warns) != 0 {
		t.Fatalf("warnings: %+v", warns)
	}
	if got, want := asJSON(t, tree), `[{"config":{"n":1},"id":"a","name":"@x/a"},{"id":"b","name":"@x/b"}]`; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

func TestComposeOverridesAndInserts(t *testing.T) {
	base := `
- insert:
    - id: a
      name: '@x/a'
      config: {n: 1, keep: true}
    - id: g
      name: cordis:group
      group: true
      config:
        - id: c
          name: '@x/c'
`
	tree, warns := composeYAML(t, base, `
# override by id replaces the whole config, as DSH sets each key
- id: a
  config: {n: 2}
# insert into a group, then a later patch of the same list targets the inserted row
- id: g
  insert:
    - id: d
      name: '@x/d'
- id: d
  disabled: true
# a name that is not the row's skips the patch
- id: c
  name: '@x/other'
  config: {bad: true}
# nothing to target
- id: nope
  config: {}
- config: {}
- id: a
  insert: [{id: e, name: '@x/e'}]
`)
	want := `[{"config":{"n":2},"id":"a","name":"@x/a"},{"config":[{"id":"c","name":"@x/c"},{"disabled":true,"id":"d","name":"@x/d"}],"group":true,"id":"g","name":"cordis:group"}]`
	if got := asJSON(t, tree); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	var texts []string
	for _, w := range warns {
		texts = append(texts, w.Text)
	}
	wantWarn := []string{
		`patch: name mismatch for "c" (expected "@x/c", got "@x/other"), skipping`,
		`patch: entry "nope" not found`,
		`patch: id is required for non-insert patches`,
		`patch insert: entry "a" is not a group`,
	}
	if strings.Join(texts, "\n") != strings.Join(wantWarn, "\n") {
		t.Fatalf("warnings:\n%s", strings.Join(texts, "\n"))
	}
	if warns[0].Layer != 1 || warns[0].Patch != 4 {
		t.Fatalf("warning position: %+v", warns[0])
	}
}

// A group config replaced by an override is not indexed again: DSH's single-pass index.
func TestComposeReplacedGroupConfigIsNotIndexed(t *testing.T) {
	tree, warns := composeYAML(t, `
- insert:
    - {id: g, name: cordis:group, group: true, config: [{id: old, name: '@x/old'}]}
- id: g
  config: [{id: new, name: '@x/new'}]
- id: new
  disabled: true
- id: old
  disabled: true
`)
	if got, want := asJSON(t, tree), `[{"config":[{"id":"new","name":"@x/new"}],"group":true,"id":"g","name":"cordis:group"}]`; got != want {
		t.Fatalf("got %s", got)
	}
	if len(warns) != 1 || warns[0].Text != `patch: entry "new" not found` {
		t.Fatalf("warnings: %+v", warns)
	}
}

func TestComposeRefusesWhatDSHCannotMount(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"insert mapping", `- insert: {id: a}`, "insert must be a list"},
		{"insert scalar row", `- insert: [a]`, "must be a mapping"},
		{"numeric id", `- insert: [{id: 5, name: x}]`, "id must be a string"},
		{"numeric patch id", `- id: 5
  config: {}`, "id must be a string"},
		{"numeric name", `- id: a
  name: 5`, "name must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := ParsePatches("p.yml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			var all []layerPatch
			for i, p := range ps {
				all = append(all, layerPatch{index: i + 1, p: p})
			}
			if _, _, err := compose(all); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestComposeDoesNotShareThePatches(t *testing.T) {
	ps, err := ParsePatches("p.yml", []byte("- insert: [{id: g, group: true, config: []}]\n- id: g\n  insert: [{id: c, name: x}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	all := []layerPatch{{index: 1, p: ps[0]}, {index: 2, p: ps[1]}}
	first, _, _ := compose(all)
	second, _, _ := compose(all)
	if asJSON(t, first) != asJSON(t, second) {
		t.Fatalf("a second composition differs:\n%s\n%s", asJSON(t, first), asJSON(t, second))
	}
}

func TestParsePatches(t *testing.T) {
	ps, err := ParsePatches("p.yml", []byte(`
- id: a
  config:
    expr: !!js process.env.X
    n: 0x10
    f: 1.5
    s: 'yes'
    plain: yes
    date: 2001-12-14
    none: ~
    list: &l [1, two]
    again: *l
`))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"config":{"again":[1,"two"],"date":"2001-12-14","expr":{"!!js":"process.env.X"},"f":1.5,"list":[1,"two"],"n":16,"none":null,"plain":"yes","s":"yes"},"id":"a"}]`
	var list []any
	for _, p := range ps {
		list = append(list, p)
	}
	if got := asJSON(t, list); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if _, ok := ps[0]["config"].(map[string]any)["expr"].(JSExpr); !ok {
		t.Fatal("!!js is not a JSExpr")
	}
}

func TestParsePatchesRefuses(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for i := range 8 {
		name := string(rune('b' + i))
		bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	for _, tc := range []struct{ name, yaml, want string }{
		{"empty", "", "is empty"},
		{"mapping", "a: 1", "top-level YAML list"},
		{"scalar entry", "- a", "must be a mapping"},
		{"two documents", "- {id: a}\n---\n- {id: b}\n", "more than one YAML document"},
		{"duplicate key", "- {id: a, id: b}", "duplicate key"},
		{"merge key", "- &x {id: a}\n- {<<: *x}", "merge keys"},
		{"complex key", "- {[a]: 1}", "plain string"},
		{"binary", "- {id: !!binary aGk=}", "not in DSH's patch dialect"},
		{"custom tag", "- {id: !foo a}", "not in DSH's patch dialect"},
		{"nan", "- {n: .nan}", "JSON can hold"},
		{"inf", "- {n: -.inf}", "JSON can hold"},
		{"deep", "- " + strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2), "deeper"},
		{"alias bomb", "- " + strings.ReplaceAll(strings.TrimSpace("{"+strings.ReplaceAll(strings.TrimSuffix(bomb, "\n"), "\n", ", ")+"}"), "\n", ""), "more than"},
		{"not yaml", "- [", "is not YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePatches("p.yml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("%T is not a *ParseError", err)
			}
		})
	}
	if _, err := ParsePatches("p.yml", make([]byte, MaxPatchBytes+1)); err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("a large file: %v", err)
	}
}

func FuzzParsePatches(f *testing.F) {
	f.Add([]byte("- insert:\n    - id: a\n      name: '@x/a'\n      config: {n: 1, e: !!js x}\n- id: a\n  disabled: true\n"))
	f.Add([]byte("- {id: g, group: true, config: [{id: c, name: x}]}\n- id: g\n  insert: [{id: d}]\n"))
	f.Add([]byte("- &a {id: a}\n- *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := ParsePatches("f.yml", data)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("%T: %v", err, err)
			}
			return
		}
		var all []layerPatch
		for i, p := range ps {
			all = append(all, layerPatch{index: i + 1, p: p})
		}
		tree, _, err := compose(all)
		if err != nil {
			return
		}
		if _, err := json.Marshal(plain(tree)); err != nil {
			t.Fatalf("a composition JSON cannot hold: %v", err)
		}
	})
}
