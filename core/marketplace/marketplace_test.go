package marketplace

import (
	"encoding/json"
	"errors"
	"testing"
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
	f.Add([]byte(`{"name":"m","metadata":{"pluginRoot":"p"},"plugins":[{"name":"a","source":"./a"},{"name":"b","source":{"source":"url"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		for _, e := range m.Plugins {
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
