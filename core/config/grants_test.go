package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseGrants(t *testing.T) {
	t.Setenv("CWX_TEST_PAYLOADS", "/srv/payloads")
	cfg, err := Parse("c.toml", []byte(`
[plugins.a]
read = ["/home/me//data/", "${env:CWX_TEST_PAYLOADS}/primary", "/home/me/data"]
network = ["https://API.example.com:443", "http://127.0.0.1:8080/", "https://[::1]:9443"]
confirm_hook_network = true
`))
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Plugin("a").Grants
	want := Grants{Read: []string{"/home/me/data", "/srv/payloads/primary"}, Written: []string{"/home/me//data/", "${env:CWX_TEST_PAYLOADS}/primary"},
		Network: []string{"https://api.example.com", "http://127.0.0.1:8080", "https://[::1]:9443"}, ConfirmHookNetwork: true}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("grants %+v, want %+v", g, want)
	}
	if !cfg.Isolated("a") {
		t.Fatal("a plugin with grants is not isolated")
	}
	shared, _ := Parse("c.toml", []byte("[plugins.a]\nisolation = \"shared\"\nread = [\"/srv\"]"))
	if !shared.Isolated("a") {
		t.Fatal(`isolation = "shared" kept a plugin with grants in the shared host`)
	}
}

func TestParseGrantErrors(t *testing.T) {
	t.Setenv("CWX_TEST_NL", "/a\n/b")
	for _, tc := range []struct{ name, toml, key, contains string }{
		{"relative", `read = ["data"]`, `plugins."a".read[0]`, "is not an absolute path"},
		{"unset env", `read = ["${env:CWX_TEST_NOT_SET_AT_ALL}/x"]`, `plugins."a".read[0]`, "which is not set"},
		{"env with a newline", `read = ["${env:CWX_TEST_NL}"]`, `plugins."a".read[0]`, "holds a line break"},
		{"other expansion", `read = ["/x/${HOME}"]`, `plugins."a".read[0]`, "not ${env:NAME}"},
		{"not an origin", `network = ["api.example.com"]`, `plugins."a".network[0]`, "is not an origin"},
		{"a path", `network = ["https://api.example.com/v1"]`, `plugins."a".network[0]`, "more than an origin"},
		{"user info", `network = ["https://u:p@api.example.com"]`, `plugins."a".network[0]`, "more than an origin"},
		{"ftp", `network = ["ftp://files.example.com"]`, `plugins."a".network[0]`, "is not an origin"},
		{"second entry", `network = ["https://ok.example.com", "nope"]`, `plugins."a".network[1]`, "is not an origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("/h/config.toml", []byte("[plugins.a]\n"+tc.toml+"\n"))
			ce, ok := err.(*Error)
			if !ok || ce.Key != tc.key || !strings.Contains(ce.Reason, tc.contains) {
				t.Fatalf("err = %v (key %q), want key %q containing %q", err, keyOf(err), tc.key, tc.contains)
			}
		})
	}
}

func keyOf(err error) string {
	if ce, ok := err.(*Error); ok {
		return ce.Key
	}
	return ""
}

func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"https://a.example", "http://[::1]:80", "https://x:0", "https://%zz", "https://a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrigin(s)
		if err != nil {
			return
		}
		again, err := ParseOrigin(o)
		if err != nil || again != o {
			t.Fatalf("ParseOrigin(%q) = %q, which parses as %q, %v", s, o, again, err)
		}
	})
}

func TestUnknownKeyDidYouMean(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[extension_host]\nruntim = \"node\"", "(did you mean runtime?)"},
		{"[extension_host]\nsandbox_uidd = 5", "(did you mean sandbox_uid?)"},
		{"[plugins.a]\nisolaton = \"process\"", "(did you mean isolation?)"},
		{"[plugins.a]\nreads = [\"/x\"]", "(did you mean read?)"},
		{"hook_file = \"x\"", "(did you mean hooks_file?)"},
		{"[extension_host]\ncompletely_else = 1", ""},
	} {
		_, err := Parse("c.toml", []byte(tc.toml))
		if err == nil {
			t.Fatalf("%q accepted", tc.toml)
		}
		if got := strings.Contains(err.Error(), "did you mean"); tc.want == "" && got || tc.want != "" && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %q", tc.toml, err, tc.want)
		}
	}
}

func TestParseFetchGrants(t *testing.T) {
	cfg, err := Parse("c.toml", []byte(`
[plugins.a]
network = ["https://api.example.com", "http://127.0.0.1:8080"]
network_private = ["http://127.0.0.1:8080/"]
[plugins.a.headers."https://API.example.com:443"]
authorization = "Bearer ${env:CWX_TEST_TOKEN_NOT_EXPANDED_AT_LOAD}"
X-Team = "docs"
`))
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Plugin("a").Grants
	if !reflect.DeepEqual(g.Private, []string{"http://127.0.0.1:8080"}) {
		t.Fatalf("private %v", g.Private)
	}
	want := map[string]map[string]string{"https://api.example.com": {"Authorization": "Bearer ${env:CWX_TEST_TOKEN_NOT_EXPANDED_AT_LOAD}", "X-Team": "docs"}}
	if !reflect.DeepEqual(g.Headers, want) {
		t.Fatalf("headers %v", g.Headers)
	}
	if names := g.HeaderNames(); !reflect.DeepEqual(names, map[string][]string{"https://api.example.com": {"Authorization", "X-Team"}}) {
		t.Fatalf("names %v", names)
	}
	for _, tc := range []struct{ name, toml, key, contains string }{
		{"private not granted", "network_private = [\"http://127.0.0.1:1\"]", `plugins."a".network_private[0]`, "is not in network"},
		{"private not an origin", "network_private = [\"x\"]", `plugins."a".network_private[0]`, "is not an origin"},
		{"headers not granted", "[plugins.a.headers.\"https://b.example.com\"]\nX = \"1\"", `plugins."a".headers."https://b.example.com"`, "is not in network"},
		{"a hop header", "network = [\"https://b.example.com\"]\n[plugins.a.headers.\"https://b.example.com\"]\nConnection = \"1\"", `plugins."a".headers."https://b.example.com".Connection`, "set by the connection"},
		{"a Proxy- header", "network = [\"https://b.example.com\"]\n[plugins.a.headers.\"https://b.example.com\"]\nProxy-Authorization = \"1\"", `plugins."a".headers."https://b.example.com".Proxy-Authorization`, "set by the connection"},
		{"a bad name", "network = [\"https://b.example.com\"]\n[plugins.a.headers.\"https://b.example.com\"]\n\"X Y\" = \"1\"", `plugins."a".headers."https://b.example.com".X Y`, "not a header name"},
		{"a line break", "network = [\"https://b.example.com\"]\n[plugins.a.headers.\"https://b.example.com\"]\nX = \"a\\nb\"", `plugins."a".headers."https://b.example.com".X`, "line break"},
		{"another expansion", "network = [\"https://b.example.com\"]\n[plugins.a.headers.\"https://b.example.com\"]\nX = \"${HOME}\"", `plugins."a".headers."https://b.example.com".X`, "not ${env:NAME}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("/h/config.toml", []byte("[plugins.a]\n"+tc.toml+"\n"))
			ce, ok := err.(*Error)
			if !ok || ce.Key != tc.key || !strings.Contains(ce.Reason, tc.contains) {
				t.Fatalf("err = %v (key %q), want key %q containing %q", err, keyOf(err), tc.key, tc.contains)
			}
		})
	}
}
