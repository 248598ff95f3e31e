package cli

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cwx-dev/cwx/core/npmreg"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// testRegistry is a registry served on loopback: package documents and tarballs, set up per
// test. The test configures cwx to use it, as a user would.
type testRegistry struct {
	t     *testing.T
	srv   *httptest.Server
	other *httptest.Server // another origin, for redirects
	mu    sync.Mutex
	pkgs  map[string]*testPackage
	tars  map[string][]byte // by path
	// redirect maps a tarball path to a URL it answers 302 with.
	redirect map[string]string
	// announce maps a tarball path to a Content-Length it claims (an oversize tarball).
	announce map[string]int64
	// stream maps a tarball path to a number of bytes it sends without a Content-Length.
	stream map[string]int64
	served map[string]int
}

type testPackage struct {
	tags     map[string]string
	versions map[string]map[string]any
}

func newTestRegistry(t *testing.T) *testRegistry {
	r := &testRegistry{t: t, pkgs: map[string]*testPackage{}, tars: map[string][]byte{},
		redirect: map[string]string{}, announce: map[string]int64{}, stream: map[string]int64{}, served: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.served["other"+req.URL.Path]++
		r.mu.Unlock()
		w.Write([]byte("not the registry"))
	}))
	t.Cleanup(r.srv.Close)
	t.Cleanup(r.other.Close)
	return r
}

func (r *testRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.served[req.URL.EscapedPath()]++
	if to, ok := r.redirect[req.URL.Path]; ok {
		http.Redirect(w, req, to, http.StatusFound)
		return
	}
	if n, ok := r.announce[req.URL.Path]; ok {
		w.Header().Set("Content-Length", fmt.Sprint(n))
		w.WriteHeader(http.StatusOK)
		return // the test only needs the claim: the client must refuse before reading
	}
	if n, ok := r.stream[req.URL.Path]; ok {
		w.(http.Flusher).Flush() // headers out with no Content-Length: the cap is met while reading
		chunk := make([]byte, 1<<20)
		for ; n > 0; n -= int64(len(chunk)) {
			if _, err := w.Write(chunk[:min(n, int64(len(chunk)))]); err != nil {
				return
			}
		}
		return
	}
	if b, ok := r.tars[req.URL.Path]; ok {
		w.Write(b)
		return
	}
	// Package documents: /name or /@scope%2fname.
	name := strings.Replace(strings.TrimPrefix(req.URL.EscapedPath(), "/"), "%2f", "/", 1)
	p, ok := r.pkgs[name]
	if !ok {
		http.NotFound(w, req)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"name": name, "dist-tags": p.tags, "versions": p.versions})
}

// publish adds version of name with a plugin.json plugin whose index.mjs carries body, and
// returns the tarball's bytes (an npm package whose main is a Cordis plugin). extra changes the version's document entry.
func (r *testRegistry) publish(name, version, body string, extra map[string]any) []byte {
	r.t.Helper()
	dir := r.t.TempDir()
	p := plugintest.Tarball(r.t, dir, "p.tgz", []plugintest.TarEntry{
		{Name: "package/package.json", Body: fmt.Sprintf(`{"name":%q,"version":%q,"main":"index.mjs"}`, name, version)},
		{Name: "package/index.mjs", Body: "export const inject = ['tools'];\nexport function apply(ctx) { /* " + body + " */ }\n"},
	})
	data, err := os.ReadFile(p)
	if err != nil {
		r.t.Fatal(err)
	}
	r.put(name, version, data, extra)
	return data
}

func sri(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

func (r *testRegistry) put(name, version string, tgz []byte, extra map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tpath := "/tarballs/" + strings.ReplaceAll(name, "/", "-") + "-" + version + ".tgz"
	r.tars[tpath] = tgz
	p := r.pkgs[name]
	if p == nil {
		p = &testPackage{tags: map[string]string{}, versions: map[string]map[string]any{}}
		r.pkgs[name] = p
	}
	v := map[string]any{"name": name, "version": version,
		"dist": map[string]any{"tarball": r.srv.URL + tpath, "integrity": sri(tgz)}}
	for k, x := range extra {
		v[k] = x
	}
	p.versions[version] = v
}

func (r *testRegistry) tag(name, tag, version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pkgs[name].tags[tag] = version
}

func (r *testRegistry) hits(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.served[path]
}

// useRegistry writes config.toml in home pointing [install] npm_registry at the test
// registry, and hides the user's own ~/.npmrc.
func useRegistry(t *testing.T, home string, reg *testRegistry) {
	t.Helper()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[install]\nnpm_registry = %q\n", reg.srv.URL+"/")
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NPM_CONFIG_USERCONFIG", filepath.Join(t.TempDir(), "no-npmrc"))
}

func installJSON(t *testing.T, args ...string) PluginInstallResult {
	t.Helper()
	out := mustCLI(t, append([]string{"plugin", "install", "--json"}, args...)...)
	var res PluginInstallResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return res
}

func TestInstallByName(t *testing.T) {
	home := pluginHome(t)
	reg := newTestRegistry(t)
	useRegistry(t, home, reg)
	reg.publish("@acme/hello", "1.0.0", "one", nil)
	reg.publish("@acme/hello", "1.1.0", "one-one", nil)
	reg.publish("@acme/hello", "1.2.0", "one-two", map[string]any{"deprecated": "1.2.0 loses data; use 1.1.0"})
	reg.publish("@acme/hello", "2.0.0-beta.1", "two", nil)
	reg.tag("@acme/hello", "latest", "1.1.0")
	reg.tag("@acme/hello", "next", "2.0.0-beta.1")

	for _, tc := range []struct{ spec, version string }{
		{"npm:@acme/hello", "1.1.0"},             // latest
		{"npm:@acme/hello@next", "2.0.0-beta.1"}, // a dist-tag
		{"npm:@acme/hello@~1.0", "1.0.0"},        // a range latest does not satisfy
		{"npm:@acme/hello@^1.0.0", "1.1.0"},      // a range latest satisfies: latest, as npm picks
		{"npm:@acme/hello@1.2.0", "1.2.0"},       // an exact version, deprecated
	} {
		t.Run(tc.spec, func(t *testing.T) {
			res := installJSON(t, tc.spec)
			if res.ID != "@acme/hello" || res.Version != tc.version || res.Source != "npm:@acme/hello@"+tc.version {
				t.Fatalf("installed %+v, want version %s", res, tc.version)
			}
			if !strings.HasPrefix(res.Integrity, "sha512-") {
				t.Fatalf("no integrity in %+v", res)
			}
		})
	}
	if reg.hits("/@acme%2fhello") == 0 {
		t.Fatal("the scoped document was not asked for with an encoded slash")
	}
	// The deprecated version says so at install and in review.
	out := mustCLI(t, "plugin", "install", "npm:@acme/hello@1.2.0")
	if !strings.Contains(out, "already installed") {
		t.Fatalf("second install of the same bytes: %s", out)
	}
	rv := mustCLI(t, "plugin", "review", "@acme/hello")
	if !strings.Contains(rv, "DEPRECATED by its publisher: 1.2.0 loses data; use 1.1.0") || !strings.Contains(rv, "source   npm:@acme/hello@1.2.0") {
		t.Fatalf("review does not say the version is deprecated:\n%s", rv)
	}
	list := mustCLI(t, "plugin", "list")
	if !strings.Contains(list, "npm:@acme/hello@1.2.0") {
		t.Fatalf("list does not show the source:\n%s", list)
	}
	// --integrity pins the bytes on top of the registry's document.
	one := reg.pkgs["@acme/hello"].versions["1.0.0"]["dist"].(map[string]any)["integrity"].(string)
	if r := runPluginCLI(t, "plugin", "install", "npm:@acme/hello@1.0.0", "--integrity", sri([]byte("else"))); r.code != ExitDenied || !strings.Contains(r.stderr, "pins") {
		t.Fatalf("a wrong --integrity: exit %d\n%s", r.code, r.stderr)
	}
	if res := installJSON(t, "npm:@acme/hello@1.0.0", "--integrity", one); res.Version != "1.0.0" || res.Integrity != one {
		t.Fatalf("a right --integrity: %+v", res)
	}
	if r := runPluginCLI(t, "plugin", "install", "npm:@acme/hello@^3"); r.code != ExitInvalid || !strings.Contains(r.stderr, "no version of @acme/hello satisfies ^3") {
		t.Fatalf("no match: exit %d\n%s", r.code, r.stderr)
	}
	if r := runPluginCLI(t, "plugin", "install", "npm:@acme/nosuch"); r.code != ExitInvalid || !strings.Contains(r.stderr, "not published") {
		t.Fatalf("unknown package: exit %d\n%s", r.code, r.stderr)
	}
}

// tmpEmpty fails unless nothing was left in the store's private folder and nothing staged
// for id.
func assertNothingUnpacked(t *testing.T, home, id string) {
	t.Helper()
	l := plugins.Layout{Home: home}
	if ents, _ := os.ReadDir(l.TmpDir()); len(ents) != 0 {
		t.Fatalf("left in %s: %v", l.TmpDir(), ents)
	}
	if _, err := os.Stat(l.PluginDir(id)); !os.IsNotExist(err) {
		t.Fatalf("%s was staged: %v", id, err)
	}
}

func TestInstallByNameRefusals(t *testing.T) {
	home := pluginHome(t)
	reg := newTestRegistry(t)
	useRegistry(t, home, reg)

	// A tarball with an install script, published under another tarball's integrity: had it
	// been unpacked first, the refusal would name the install script.
	bad := plugintest.Tarball(t, t.TempDir(), "bad.tgz", []plugintest.TarEntry{
		{Name: "package/package.json", Body: `{"name":"wrong-integrity","version":"1.0.0","main":"index.mjs","scripts":{"postinstall":"x"}}`},
		{Name: "package/index.mjs", Body: "export function apply() {}\n"},
	})
	badBytes, _ := os.ReadFile(bad)
	reg.put("wrong-integrity", "1.0.0", badBytes, map[string]any{"dist": map[string]any{
		"tarball": reg.srv.URL + "/tarballs/wrong-integrity-1.0.0.tgz", "integrity": sri([]byte("other bytes"))}})
	reg.tag("wrong-integrity", "latest", "1.0.0")

	reg.publish("moved", "1.0.0", "m", nil)
	reg.redirect["/tarballs/moved-1.0.0.tgz"] = reg.other.URL + "/moved.tgz"

	reg.publish("elsewhere", "1.0.0", "e", map[string]any{"dist": map[string]any{
		"tarball": reg.other.URL + "/elsewhere.tgz", "integrity": sri([]byte("x"))}})

	reg.publish("huge", "1.0.0", "h", nil)
	reg.announce["/tarballs/huge-1.0.0.tgz"] = npmreg.MaxTarballBytes + 1

	reg.publish("streamed", "1.0.0", "s", nil)
	reg.stream["/tarballs/streamed-1.0.0.tgz"] = npmreg.MaxTarballBytes + 1

	reg.publish("nopin", "1.0.0", "n", map[string]any{"dist": map[string]any{
		"tarball": reg.srv.URL + "/tarballs/nopin-1.0.0.tgz", "shasum": "abc"}})

	for _, tc := range []struct {
		spec, id, want string
	}{
		{"npm:wrong-integrity", "wrong-integrity", "integrity check failed: the tarball is sha512-"},
		{"npm:moved", "moved", "only the registry's own origin"},
		{"npm:elsewhere", "elsewhere", "not on the registry's origin"},
		{"npm:huge", "huge", "body over the size cap"},
		{"npm:streamed", "streamed", "over the size cap"},
		{"npm:nopin", "nopin", "no sha512 integrity"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			r := runPluginCLI(t, "plugin", "install", tc.spec)
			if r.code != ExitInvalid || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", r.code, ExitInvalid, tc.want, r.stderr)
			}
			if strings.Contains(r.stderr, "install script") {
				t.Fatalf("the tarball was unpacked before its integrity was checked:\n%s", r.stderr)
			}
			assertNothingUnpacked(t, home, tc.id)
		})
	}
	if n := reg.hits("other/moved.tgz") + reg.hits("other/elsewhere.tgz"); n != 0 {
		t.Fatalf("the other origin was asked %d times", n)
	}
	if st, err := os.ReadFile(filepath.Join(home, "state.json")); err == nil && strings.Contains(string(st), `"id"`) {
		t.Fatalf("a refused install was recorded:\n%s", st)
	}
}

// A loopback registry is reachable only because the user configured that address: npm's
// default is never allowed to resolve to one.
func TestInstallByNameLoopbackNeedsConfiguration(t *testing.T) {
	reg := newTestRegistry(t)
	r, err := npmreg.Open(reg.srv.URL+"/", npmreg.FromDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Document(t.Context(), "x"); err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("a loopback registry not configured by the user: %v", err)
	}
}

// Without [install] npm_registry, the registry is the registry= line of the user's npm
// configuration (~/.npmrc, or the file NPM_CONFIG_USERCONFIG names), as `make demo` relies
// on: the machine's npm configuration decides, and no host is written down.
func TestInstallByNameFromNpmrc(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("from-npmrc", "1.0.0", "n", nil)
	reg.tag("from-npmrc", "latest", "1.0.0")
	for _, tc := range []struct{ name, userconfig string }{
		{"home npmrc", ""},
		{"NPM_CONFIG_USERCONFIG", "custom-npmrc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pluginHome(t)
			dir := t.TempDir()
			file := filepath.Join(dir, ".npmrc")
			if tc.userconfig != "" {
				file = filepath.Join(dir, tc.userconfig)
			}
			npmrc := "; npm's own settings\nfund=false\nregistry=" + reg.srv.URL + "/\n@other:registry=https://other.invalid/\n"
			if err := os.WriteFile(file, []byte(npmrc), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", dir)
			t.Setenv("NPM_CONFIG_USERCONFIG", "")
			if tc.userconfig != "" {
				t.Setenv("HOME", t.TempDir()) // no ~/.npmrc there
				t.Setenv("NPM_CONFIG_USERCONFIG", file)
			}
			res := installJSON(t, "npm:from-npmrc")
			if res.Version != "1.0.0" {
				t.Fatalf("install: %+v", res)
			}
			if o := getRecord(t, "from-npmrc").Origin; o.Registry != reg.srv.URL+"/" {
				t.Fatalf("registry %q, want the npmrc's %q", o.Registry, reg.srv.URL+"/")
			}
		})
	}
}
