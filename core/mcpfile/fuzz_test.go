package mcpfile

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
)

// fuzzSecret is the value of every variable FuzzDecode expands with.
const fuzzSecret = "fz-s3cr3t"

// FuzzDecode: any bytes decode (as a user's file and as a plugin's) to a file or to an
// *Error; a decoded server has a command or a url as its transport says; expanding never
// panics, gives every server in order, or fails with an *Error that does not hold a
// variable's value unless the file itself spells it.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"claude/.mcp.json", "vscode/.vscode/mcp.json"} {
		f.Add(readTestdata(f, name))
	}
	for _, s := range []string{
		`{"mcpServers": {"a": {"command": "${A:-b}", "args": ["${A}"], "env": {"K": "${env:A}"}}}}`,
		`{"mcpServers": {"a": {"type": "http", "url": "${A}", "headers": {"Authorization": "Bearer ${A}"}}}}`,
		`{"servers": {"a": {"command": "x", "cwd": "${workspaceFolder}", "args": ["${input:k}", "${env:A}"]}}, "inputs": [{"id": "k"}]}`,
		`{"servers": {"a": {"url": "https://${env:A}/x", "headers": {"X": "${userHome}"}}},}`,
		`{"context7": {"command": "npx"}}`, `{"servers": {}} // c`, `{}`, `null`, `[`, "\ufeff{\"mcpServers\": {}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got := plain(data); len(got) != len(data) {
			t.Fatalf("plain changed the length: %d, %d", len(got), len(data))
		}
		for _, decode := range []func([]byte) (*File, error){Decode, DecodePlugin} {
			file, err := decode(data)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrFile) {
					t.Fatalf("decode error %T %v is not an *Error", err, err)
				}
				continue
			}
			for _, s := range file.Servers {
				if (s.Command == "") == (s.URL == "") || s.Remote() != (s.URL != "") {
					t.Fatalf("server %+v", s)
				}
			}
			vars := Vars{Lookup: func(string) (string, bool) { return fuzzSecret, true }, WorkspaceFolder: "/w"}
			es, err := file.Expand(vars)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrFile) {
					t.Fatalf("expand error %T %v is not an *Error", err, err)
				}
				if strings.Contains(err.Error(), fuzzSecret) && !bytes.Contains(data, []byte(fuzzSecret)) {
					t.Fatalf("the error holds a variable's value: %v", err)
				}
				continue
			}
			if len(es) != len(file.Servers) || !slices.IsSortedFunc(es, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) }) {
				t.Fatalf("%d entries of %d servers, or unsorted", len(es), len(file.Servers))
			}
			for _, e := range es {
				if e.Server.Remote() {
					srv := config.MCPServer{Transport: e.Server.Transport, URL: e.Server.URL}
					if err := config.CheckRemoteMCP(&srv, e.Server.Headers, ""); err != nil {
						t.Fatalf("an expanded remote server fails its check: %v", err)
					}
				} else if e.Server.Command == "" {
					t.Fatalf("an expanded stdio server without a command: %+v", e)
				}
			}
		}
	})
}
