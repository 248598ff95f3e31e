package plugins

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/plugins/plugintest"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// compatTable is a compatibility table providing the given dsh services besides tools and
// commands, with storage refused as a core shim.
func compatTable(dsh ...string) []byte {
	names := `"commands", "tools"`
	for _, n := range dsh {
		names += `, "` + n + `"`
	}
	return []byte(`{"version": 1, "target": {"dsh": "0.1.0-rc.8"},
  "provided_services": {"dsh": [` + names + `], "cordis": ["logger", "timer"], "cwx": []},
  "builtin_services": [], "refused_services": {"storage": "the cwx host's own shim", "agents": "the cwx core owns the agents"}}`)
}

// injecting installs a plugin whose entry declares inject (a JS literal), or none when "".
func injecting(t *testing.T, s *Store, id, inject string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	src := "export function apply() {}\n"
	if id == "lowered" {
		src = "class P { apply() {} }\n__publicField(P, \"inject\", [\"agents\"]);\nexport default P;\n"
	} else if inject != "" {
		src = "export const inject = " + inject + ";\n" + src
	}
	plugintest.WriteTree(t, dir, map[string]string{
		"plugin.json": `{"name":"` + id + `","version":"1.0.0","native":["index.mjs"]}`,
		"index.mjs":   src,
	})
	if _, err := s.Install(dir); err != nil {
		t.Fatal(err)
	}
}

func TestParseCompatRefusesBadTables(t *testing.T) {
	for _, tc := range []struct{ name, table, want string }{
		{"unknown field", `{"version":1,"provided":{}}`, `unknown field "provided"`},
		{"no version", `{"provided_services":{}}`, "version must be 1 or more"},
		{"unknown group", `{"version":1,"provided_services":{"codewhale":["tools"]}}`, `unknown group "codewhale"`},
		{"two groups", `{"version":1,"provided_services":{"dsh":["tools"],"cwx":["tools"]}}`, `"tools" is provided by both`},
		{"empty name", `{"version":1,"provided_services":{"dsh":[""]}}`, "an empty service name"},
		{"no reason", `{"version":1,"refused_services":{"fs":" "}}`, `refused service "fs" needs a name and a reason`},
		{"not json", `{`, "compatibility table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCompat([]byte(tc.table))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHostCompatibilityTable(t *testing.T) {
	c, err := ParseCompat(jshost.CompatibilityJSON())
	if err != nil {
		t.Fatal(err)
	}
	for svc, want := range map[string]string{
		"tools":         "provided (dsh)",
		"timer":         "provided (cordis)",
		"prompt":        "provided (cwx)",
		"userQuestions": "provided (dsh)",
		"agents":        "provided (dsh)",
		"subagents":     "provided (dsh)",
		"llm":           "not provided: the cwx core owns the model",
		"shellHooks":    "not provided: the cwx core owns shell hooks",
		"goals":         "not provided by cwx",
	} {
		if got := c.Describe(svc); got != want {
			t.Errorf("%s: %q, want %q", svc, got, want)
		}
	}
	s := newStore(t, t.TempDir(), nil)
	if s.Compat().SHA256 != c.SHA256 || len(c.SHA256) != 64 {
		t.Fatalf("the store's table %s, the host's %s", s.Compat().SHA256, c.SHA256)
	}
}

// TestCompatChangeReviewsOnlyChangedServices: a new table keeps every receipt whose injected
// services keep their status, and fails the others naming the service and what changed.
func TestCompatChangeReviewsOnlyChangedServices(t *testing.T) {
	for _, tc := range []struct {
		name, inject string
		before, now  []byte
		want         string // "" for a receipt that still holds
	}{
		{"unchanged services", `['tools', 'commands']`, compatTable(), compatTable("userQuestions"), ""},
		{"injects nothing", "", compatTable(), compatTable("userQuestions"), ""},
		{"newly provided", `['tools', 'userQuestions']`, compatTable(), compatTable("userQuestions"),
			"service `userQuestions` was not provided and is now provided (dsh)"},
		{"no longer provided", `['storage']`, compatTable("storage"), compatTable(),
			"service `storage` was provided (dsh) and is now not provided: the cwx host's own shim"},
		{"not a literal", `names`, compatTable(), compatTable("userQuestions"), "cwx could not read which services it injects"},
		{"a lowered class field", "", compatTable(), compatTable("userQuestions"), "cwx could not read which services it injects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			s := newStore(t, home, func(o *Options) { o.Compat = tc.before })
			id := "p"
			if tc.name == "a lowered class field" {
				id = "lowered"
			}
			injecting(t, s, id, tc.inject)
			trustEnable(t, s, id)
			now := newStore(t, home, func(o *Options) { o.Compat = tc.now })
			r, err := now.Get(id)
			must(t, err)
			err = now.CheckReceipt(r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("receipt failed: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrCapabilitiesChanged) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "the compatibility table changed (") {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if got := now.Status(r); got != "capabilities changed, review again" {
				t.Fatalf("status %q", got)
			}
			trustEnable(t, now, id) // a new review under the new table trusts again
			r, _ = now.Get(id)
			must(t, now.CheckReceipt(r))
		})
	}
}

// TestLegacyReceiptsJudgedAgainstFirstServices: a receipt written before tables holds for a
// plugin that injects only what cwx provided then, and asks for review for one that injects a
// service provided since.
func TestLegacyReceiptsJudgedAgainstFirstServices(t *testing.T) {
	for _, tc := range []struct{ inject, want string }{
		{`['tools', 'commands', 'timer']`, ""},
		{`['tools', 'storage']`, "service `storage` was not provided and is now provided (dsh)"},
	} {
		home := t.TempDir()
		s := newStore(t, home, nil)
		injecting(t, s, "p", tc.inject)
		trustEnable(t, s, "p")
		must(t, s.withRecord("p", func(r *Record) (bool, error) {
			r.Trust.Compat, r.Trust.Services = "", nil // as written before the table
			return true, nil
		}))
		r, _ := s.Get("p")
		err := s.CheckReceipt(r)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.inject, err)
		case tc.want != "" && (!errors.Is(err, ErrCapabilitiesChanged) || !strings.Contains(err.Error(), "(no table → ") || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.inject, err, tc.want)
		}
	}
}

// TestReviewTokenBindsTheTable: a token shown under one table does not trust under another.
func TestReviewTokenBindsTheTable(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, func(o *Options) { o.Compat = compatTable() })
	injecting(t, s, "p", `['tools']`)
	rv, err := s.Review("p")
	must(t, err)
	if rv.Compatibility != s.Compat().SHA256 || len(rv.Services) != 1 || rv.Services[0] != (ServiceStatus{Name: "tools", Provider: "dsh", Detail: "provided (dsh)"}) {
		t.Fatalf("review %+v", rv)
	}
	other := newStore(t, home, func(o *Options) { o.Compat = compatTable("userQuestions") })
	if err := other.Trust("p", rv.Token); !errors.Is(err, ErrBadToken) {
		t.Fatalf("a token of another table: %v", err)
	}
	must(t, s.Trust("p", rv.Token))
}

func FuzzParseCompat(f *testing.F) {
	f.Add(jshost.CompatibilityJSON())
	f.Add(compatTable("storage"))
	f.Add([]byte(`{"version":1,"provided_services":{"dsh":["a","a"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCompat(data)
		if err != nil {
			return
		}
		for g, names := range c.Provided {
			for _, n := range names {
				if c.Provider(n) != g || !strings.HasPrefix(c.Describe(n), "provided (") {
					t.Fatalf("%q in %s: provider %q", n, g, c.Provider(n))
				}
			}
		}
	})
}
