package ccplugin

import (
	"strings"
	"testing"
)

// FuzzParseCommand: any text parses or fails with an *Error, never panics; a command that
// parses has a non-empty body, and expanding it never panics.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"---\ndescription: x\nargument-hint: <a>\n---\nDo $1 $ARGUMENTS", "plain $2", "---\n---\n", "---\nk:\n  - v\n---\nb", "\ufeff---\r\ndescription: 'q'\r\n---\r\nb"} {
		f.Add(s, "a b c")
	}
	f.Fuzz(func(t *testing.T, text, args string) {
		c, err := ParseCommand("commands/x.md", []byte(text))
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		if strings.TrimSpace(c.Body) == "" {
			t.Fatal("empty body accepted")
		}
		_ = c.Expand(args)
	})
}

// FuzzParseManifest: a manifest that parses has a kebab-case name.
func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{`{"name":"a","version":"1"}`, `{"name":"a","hooks":"./h.json"}`, `{}`, `null`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ParseManifest([]byte(text))
		if err == nil && !nameRE().MatchString(m.Name) {
			t.Fatalf("name %q accepted", m.Name)
		}
	})
}

// FuzzParseMCP: every server that parses has a command or a url, not both.
func FuzzParseMCP(f *testing.F) {
	for _, s := range []string{`{"mcpServers":{"a":{"command":"node","args":["x"]}}}`, `{"mcpServers":{"b":{"type":"http","url":"http://127.0.0.1"}}}`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ss, err := ParseMCP([]byte(text))
		if err != nil {
			return
		}
		for _, s := range ss {
			if (s.Command == "") == (s.URL == "") {
				t.Fatalf("%+v", s)
			}
		}
	})
}
