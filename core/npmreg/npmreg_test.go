package npmreg

import (
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct{ in, name, query string }{
		{"npm:dsh-tool", "dsh-tool", "latest"},
		{"npm:dsh-tool@1.2.3", "dsh-tool", "1.2.3"},
		{"npm:@scope/dsh-tool", "@scope/dsh-tool", "latest"},
		{"npm:@scope/dsh-tool@^1.2", "@scope/dsh-tool", "^1.2"},
		{"npm:@scope/dsh-tool@next", "@scope/dsh-tool", "next"},
		{"npm:a@>=1.0.0 <2", "a", ">=1.0.0 <2"},
	} {
		s, err := ParseSpec(tc.in)
		if err != nil || s.Name != tc.name || s.Query != tc.query {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %s %s", tc.in, s, err, tc.name, tc.query)
		}
	}
	for _, in := range []string{"dsh-tool", "npm:", "npm:@scope", "npm:@/x", "npm:Upper", "npm:.hidden", "npm:_x",
		"npm:a@", "npm:a/b", "npm:@s/a/b", "npm:a b", "npm:../x"} {
		if s, err := ParseSpec(in); err == nil {
			t.Errorf("ParseSpec(%q) = %+v, want a refusal", in, s)
		} else if !errors.Is(err, ErrBadSpec) {
			t.Errorf("ParseSpec(%q): %v is not ErrBadSpec", in, err)
		}
	}
}

func TestDocumentPath(t *testing.T) {
	for in, want := range map[string]string{"a": "a", "@scope/pkg": "@scope%2fpkg"} {
		if got := documentPath(in); got != want {
			t.Errorf("documentPath(%q) = %q, want %q", in, got, want)
		}
	}
}

const doc = `{
  "name": "p",
  "dist-tags": {"latest": "1.2.0", "next": "2.0.0-rc.1", "old": "0.9.0"},
  "versions": {
    "0.9.0": {"name": "p", "version": "0.9.0", "dist": {"tarball": "t", "integrity": "sha512-x"}},
    "1.0.0": {"name": "p", "version": "1.0.0", "deprecated": false},
    "1.1.0": {"name": "p", "version": "1.1.0"},
    "1.2.0": {"name": "p", "version": "1.2.0"},
    "1.3.0": {"name": "p", "version": "1.3.0", "deprecated": "use 1.4"},
    "1.3.1": {"name": "p", "version": "1.3.1", "deprecated": "broken"},
    "2.0.0-rc.1": {"name": "p", "version": "2.0.0-rc.1"},
    "3.0.0": {"name": "p", "version": "3.0.0", "deprecated": "all of 3 is broken"}
  }
}`

func TestResolve(t *testing.T) {
	d, err := ParseDocument("p", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ query, want string }{
		{"latest", "1.2.0"},
		{"next", "2.0.0-rc.1"},
		{"old", "0.9.0"},
		{"1.1.0", "1.1.0"},
		{"v1.1.0", "1.1.0"},
		{"^1.0.0", "1.2.0"},     // latest satisfies the range: npm picks it
		{"~1.1", "1.1.0"},       // latest does not: the highest that does
		{">=1.3.0 <2", "1.3.1"}, // only deprecated ones: the highest of them
		{"^1.3.0", "1.3.1"},     // 1.3.x deprecated, 1.2 out of range
		{">=1.1.0", "1.2.0"},    // latest first, though 3.0.0 is higher
		{">1.2.0", "3.0.0"},     // every match deprecated: the highest of them
		{"2.0.0-rc.1", "2.0.0-rc.1"},
		{">=2.0.0-rc.0 <2.0.0", "2.0.0-rc.1"}, // a prerelease range matches prereleases
		{"*", "1.2.0"},
	} {
		v, err := d.Resolve(tc.query)
		if err != nil || v.Version != tc.want {
			got := ""
			if v != nil {
				got = v.Version
			}
			t.Errorf("Resolve(%q) = %s, %v; want %s", tc.query, got, err, tc.want)
		}
	}
	for _, q := range []string{"4.0.0", "^5", "nosuchtag", ">=2.0.0 <3"} {
		if v, err := d.Resolve(q); err == nil {
			t.Errorf("Resolve(%q) = %s, want no match", q, v.Version)
		} else if !errors.Is(err, ErrNoMatch) {
			t.Errorf("Resolve(%q): %v is not ErrNoMatch", q, err)
		}
	}
	if v := d.Deprecated("1.3.0"); v != "use 1.4" {
		t.Errorf("deprecation of 1.3.0 = %q", v)
	}
	var newer []string
	for _, v := range d.Newer("1.2.0") {
		newer = append(newer, v.Version)
	}
	if want := "[3.0.0 2.0.0-rc.1 1.3.1 1.3.0]"; fmtList(newer) != want {
		t.Errorf("Newer(1.2.0) = %v, want %s", newer, want)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

func TestParseDocumentRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"not json":        `{`,
		"another name":    `{"name":"q","versions":{}}`,
		"key not version": `{"name":"p","versions":{"1.0.0":{"version":"1.0.1"}}}`,
		"another package": `{"name":"p","versions":{"1.0.0":{"name":"q","version":"1.0.0"}}}`,
		"null version":    `{"name":"p","versions":{"1.0.0":null}}`,
		"bad deprecated":  `{"name":"p","versions":{"1.0.0":{"version":"1.0.0","deprecated":3}}}`,
	} {
		if _, err := ParseDocument("p", []byte(body)); !errors.Is(err, ErrBadDocument) {
			t.Errorf("%s: err = %v, want ErrBadDocument", name, err)
		}
	}
}

func TestDanglingTagDropped(t *testing.T) {
	d, err := ParseDocument("p", []byte(`{"name":"p","dist-tags":{"latest":"9.9.9","ok":"1.0.0"},"versions":{"1.0.0":{"version":"1.0.0"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.DistTags["latest"]; ok {
		t.Fatal("a tag on an unpublished version was kept")
	}
	if v, err := d.Resolve("latest"); err != nil || v.Version != "1.0.0" {
		t.Fatalf("latest without its tag: %v, %v", v, err)
	}
}

func TestIntegrity(t *testing.T) {
	sum := sha512.Sum512([]byte("bytes"))
	good := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	for _, s := range []string{good, "sha1-abc " + good, good + "?opt"} {
		i, err := ParseIntegrity(s)
		if err != nil || i.String() != good || i.Check(sum[:]) != nil {
			t.Errorf("ParseIntegrity(%q) = %v, %v", s, i, err)
		}
	}
	i, _ := ParseIntegrity(good)
	other := sha512.Sum512([]byte("other"))
	if err := i.Check(other[:]); !errors.Is(err, ErrIntegrity) {
		t.Errorf("a wrong digest: %v", err)
	}
	for _, s := range []string{"", "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=", "sha512-notbase64!", "sha512-YWJj"} {
		if _, err := ParseIntegrity(s); !errors.Is(err, ErrIntegrity) {
			t.Errorf("ParseIntegrity(%q): %v, want ErrIntegrity", s, err)
		}
	}
}

func TestChoose(t *testing.T) {
	dir := t.TempDir()
	rc := filepath.Join(dir, ".npmrc")
	if u, from, _ := Choose("", rc); u != DefaultRegistry || from != FromDefault {
		t.Errorf("no npmrc: %s (%s)", u, from)
	}
	os.WriteFile(rc, []byte("; comment\n@scope:registry=https://scoped.example/\nregistry = \"https://npm.example/\"\n"), 0o600)
	if u, from, _ := Choose("", rc); u != "https://npm.example/" || from != FromNpmrc {
		t.Errorf("npmrc: %s (%s)", u, from)
	}
	if u, from, _ := Choose("http://127.0.0.1:1/", rc); u != "http://127.0.0.1:1/" || from != FromConfig {
		t.Errorf("config: %s (%s)", u, from)
	}
	os.WriteFile(rc, []byte("registry=${REG}\n"), 0o600)
	if _, _, err := Choose("", rc); err == nil {
		t.Error("an environment variable in registry= was taken")
	}
}

func FuzzParseDocument(f *testing.F) {
	f.Add([]byte(doc))
	f.Add([]byte(`{"name":"p","versions":{"1.0.0":{"version":"1.0.0","deprecated":true}}}`))
	f.Add([]byte(`{"name":"p","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"version":"1.0.0"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDocument("p", data)
		if err != nil {
			return
		}
		for tag, v := range d.DistTags {
			got, err := d.Resolve(tag)
			if err != nil {
				t.Fatalf("dist-tag %s: %v", tag, err)
			}
			if _, exact := d.Versions[tag]; !exact && got.Version != v {
				t.Fatalf("dist-tag %s resolved to %s, not %s", tag, got.Version, v)
			}
		}
		for k := range d.Versions {
			if got, err := d.Resolve(k); err != nil || got.Version != k {
				t.Fatalf("version %s resolved to %v, %v", k, got, err)
			}
		}
		for _, q := range []string{"*", "^1", ">=0.0.0-0"} {
			if v, err := d.Resolve(q); err == nil && d.Versions[v.Version] != v {
				t.Fatalf("%s resolved to a version not in the document", q)
			}
		}
		d.Latest()
		d.Newer("1.0.0")
	})
}
