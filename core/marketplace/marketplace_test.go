package marketplace

import (
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/cwx-dev/cwx/core/egress"
)

func TestEntryFolder(t *testing.T) {
	for _, tc := range []struct {
		source, root, want string
		bad                bool
	}{
		{source: `"./plugins/a"`, want: "plugins/a"},
		{source: `"a"`, root: "plugins", want: "plugins/a"},
		{source: `"./"`, want: "."},
		{source: `"../x"`, bad: true},
		{source: `"./a/../../x"`, bad: true},
		{source: `"/etc"`, bad: true},
		{source: `{"source":"github","repo":"a/b"}`, bad: true},
	} {
		got, err := Entry{Name: "e", Source: json.RawMessage(tc.source)}.Folder(tc.root)
		if tc.bad {
			if !errors.Is(err, ErrMarketplace) {
				t.Errorf("%s: %q, %v; want a refusal", tc.source, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.source, got, err, tc.want)
		}
	}
}

func TestParseManifestRefuses(t *testing.T) {
	for _, s := range []string{`{`, `{"name":"Bad Name"}`, `{"name":"m","plugins":[{"name":"a"},{"name":"a"}]}`, `{"name":"m","plugins":[{"name":"../x"}]}`} {
		if _, err := ParseManifest([]byte(s)); !errors.Is(err, ErrMarketplace) {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"name":"m","metadata":{"pluginRoot":"p"},"plugins":[{"name":"a","source":"./a"},{"name":"b","source":{"source":"url"}},{"name":"c","source":{"source":"github","repo":"o/n","ref":"main"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		for _, e := range m.Plugins {
			if g, err := e.Git(); err == nil && g != nil {
				if checkGitURL(g.URL) != nil || g.SHA != "" && len(g.SHA) != 40 {
					t.Fatalf("%s: a git source %+v that its own checks refuse", e.Name, g)
				}
				continue
			}
			folder, err := e.Folder(m.Metadata.PluginRoot)
			if err != nil {
				continue
			}
			if folder == ".." || len(folder) > 2 && folder[:3] == "../" || len(folder) > 0 && folder[0] == '/' {
				t.Fatalf("%s's folder %q leaves the repository", e.Name, folder)
			}
		}
	})
}

func TestEntryGit(t *testing.T) {
	sha := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		source string
		want   *GitSource // nil with bad false: a folder source
		bad    bool
	}{
		{source: `"./plugins/a"`},
		{source: `{"source":"github","repo":"acme/tool"}`, want: &GitSource{URL: GitHubBase + "acme/tool.git"}},
		{source: `{"source":"github","repo":"acme/tool.git","ref":"v1.2"}`, want: &GitSource{URL: GitHubBase + "acme/tool.git", Ref: "v1.2"}},
		{source: `{"source":"url","url":"https://git.example.com/t.git","sha":"` + sha + `"}`, want: &GitSource{URL: "https://git.example.com/t.git", SHA: sha}},
		{source: `{"source":"github","repo":"acme"}`, bad: true},
		{source: `{"source":"github","repo":"acme/../x"}`, bad: true},
		{source: `{"source":"github","repo":"acme/t/u"}`, bad: true},
		{source: `{"source":"url","url":"ssh://git.example.com/t.git"}`, bad: true},
		{source: `{"source":"url","url":"file:///etc/repo"}`, bad: true},
		{source: `{"source":"url","url":"https://user:pw@git.example.com/t.git"}`, bad: true},
		{source: `{"source":"url","url":"https://git.example.com/t.git?x=1"}`, bad: true},
		{source: `{"source":"url","url":"https:///t.git"}`, bad: true},
		{source: `{"source":"url","url":"https://git.example.com/t.git","ref":"../x"}`, bad: true},
		{source: `{"source":"url","url":"https://git.example.com/t.git","ref":"-x"}`, bad: true},
		{source: `{"source":"url","url":"https://git.example.com/t.git","sha":"abc123"}`, bad: true},
		{source: `{"source":"npm","package":"x"}`, bad: true},
		{source: `42`, bad: true},
	} {
		got, err := Entry{Name: "e", Source: json.RawMessage(tc.source)}.Git()
		if tc.bad {
			if !errors.Is(err, ErrMarketplace) {
				t.Errorf("%s: %+v, %v; want a refusal", tc.source, got, err)
			}
			continue
		}
		if err != nil || (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.source, got, err, tc.want)
		}
	}
}

// The policy for a repository: https to a public address, or a local origin only when it is
// the one the user typed to `marketplace add`.
func TestRemotePolicy(t *testing.T) {
	typed := func(raw string) *egress.Origin {
		u, _ := url.Parse(raw)
		o, err := egress.OriginOf(u)
		if err != nil {
			t.Fatal(err)
		}
		return &o
	}
	for _, tc := range []struct {
		url     string
		local   *egress.Origin
		ok      bool
		private bool
	}{
		{url: "https://git.example.com/t.git", ok: true},
		{url: "http://git.example.com/t.git"},
		{url: "http://127.0.0.1:8080/t.git", local: nil},
		{url: "http://127.0.0.1:8080/t.git", local: typed("http://127.0.0.1:9090/m.git")},
		{url: "http://127.0.0.1:8080/t.git", local: typed("http://127.0.0.1:8080/m.git"), ok: true, private: true},
		{url: "http://localhost:8080/t.git", local: typed("http://localhost:8080/m.git"), ok: true, private: true},
		{url: "https://10.0.0.1/t.git", local: nil, ok: true},
		{url: "https://10.0.0.1/t.git", local: typed("https://10.0.0.1/m.git"), ok: true, private: true},
		{url: "http://git.internal/t.git", local: typed("http://git.internal/m.git")},
	} {
		p, o, err := remotePolicy(tc.url, tc.local)
		if (err == nil) != tc.ok {
			t.Errorf("%s (typed %v): %v, want ok %v", tc.url, tc.local, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		if got := p.Private(o); got != tc.private {
			t.Errorf("%s (typed %v): private %v, want %v", tc.url, tc.local, got, tc.private)
		}
		other := egress.Origin{Scheme: "https", Host: "elsewhere.example", Port: 443}
		if p.Allow(egress.Origin{}, o) != nil || !errors.Is(p.Allow(o, other), egress.ErrNotAllowed) || p.Private(other) {
			t.Errorf("%s: the policy must allow exactly its own origin", tc.url)
		}
	}
}

func TestRemoteHead(t *testing.T) {
	a, b := plumbing.NewHash("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), plumbing.NewHash("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	branch := func(n string, h plumbing.Hash) *plumbing.Reference {
		return plumbing.NewHashReference(plumbing.NewBranchReferenceName(n), h)
	}
	for _, tc := range []struct {
		name string
		refs []*plumbing.Reference
		want plumbing.ReferenceName
	}{
		{"symbolic", []*plumbing.Reference{plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/dev"), branch("main", a), branch("dev", b)}, "refs/heads/dev"},
		{"main first", []*plumbing.Reference{plumbing.NewHashReference(plumbing.HEAD, a), branch("zeta", a), branch("master", a), branch("main", a)}, "refs/heads/main"},
		{"by hash", []*plumbing.Reference{plumbing.NewHashReference(plumbing.HEAD, b), branch("main", a), branch("trunk", b)}, "refs/heads/trunk"},
		{"detached", []*plumbing.Reference{plumbing.NewHashReference(plumbing.HEAD, b), branch("main", a)}, ""},
		{"no HEAD", []*plumbing.Reference{branch("main", a)}, ""},
		{"a tag is not a branch", []*plumbing.Reference{plumbing.NewSymbolicReference(plumbing.HEAD, "refs/tags/v1")}, ""},
	} {
		if got := remoteHead(tc.refs); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
