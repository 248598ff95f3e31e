package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/registry"
)

func TestModelName(t *testing.T) {
	for _, tc := range []struct {
		server, wire, want string
		plain              bool
	}{
		{"fs", "read_file", "mcp_fs_read_file", true},
		{"my-srv", "get-env", "mcp_my-srv_get-env", true},
		{"fs", "a.b", "mcp_fs_a_b_", false},
		{"fs", "dir/list", "mcp_fs_dir_list_", false},
		{"fs", "é", "mcp_fs___", false},
		{"fs", strings.Repeat("x", 70), "mcp_fs_xxx", false},
	} {
		got, plain := ModelName(tc.server, tc.wire)
		if plain != tc.plain || !strings.HasPrefix(got, tc.want) || !toolNameRE().MatchString(got) {
			t.Errorf("ModelName(%q, %q) = %q, %v; want %q…, %v", tc.server, tc.wire, got, plain, tc.want, tc.plain)
		}
	}
	a, _ := ModelName("fs", "a.b")
	b, _ := ModelName("fs", "a/b")
	if a == b {
		t.Errorf("a.b and a/b share the mapped name %q", a)
	}
}

func FuzzModelName(f *testing.F) {
	for _, s := range []string{"echo", "a.b", "get-env", strings.Repeat("z", 80), "\x00", "日本"} {
		f.Add("srv", s)
	}
	f.Fuzz(func(t *testing.T, server, wire string) {
		if !config.ValidMCPName(server) {
			server = "s"
		}
		name, plain := ModelName(server, wire)
		if name == "" {
			t.Fatalf("ModelName(%q, %q) found no name", server, wire)
		}
		if !toolNameRE().MatchString(name) || !strings.HasPrefix(name, Prefix) {
			t.Fatalf("ModelName(%q, %q) = %q, off the grammar", server, wire, name)
		}
		if plain != (name == Prefix+server+"_"+wire) {
			t.Fatalf("ModelName(%q, %q) = %q, plain %v", server, wire, name, plain)
		}
		if again, _ := ModelName(server, wire); again != name {
			t.Fatalf("not deterministic: %q then %q", name, again)
		}
	})
}

func tool(name, desc string, in, out any) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: desc, InputSchema: in, OutputSchema: out}
}

func TestAdmit(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	// a schema whose cost passes registry.MaxSchemaCost: nested anyOf doubles per level
	costly := `{"type":"object"}`
	for range 12 {
		costly = `{"anyOf":[` + costly + `,` + costly + `]}`
	}
	for _, tc := range []struct {
		name string
		tool *mcp.Tool
		says string
	}{
		{"ok", tool("ok", "fine", obj, nil), ""},
		{"output ok", tool("out", "fine", obj, obj), ""},
		{"no schema", tool("none", "x", nil, nil), "input schema is missing"},
		{"not an object", tool("arr", "x", json.RawMessage(`{"type":"array"}`), nil), "input schema"},
		{"long description", tool("long", strings.Repeat("d", registry.MaxToolDescription+1), obj, nil), "the limit is"},
		{"escape in description", tool("esc", "a\x1b[2Jb", obj, nil), "description"},
		{"bidi in name", tool("a\u202eb", "x", obj, nil), "control characters"},
		{"big schema", tool("big", "x", json.RawMessage(`{"type":"object","description":"`+strings.Repeat("s", registry.MaxSchemaBytes)+`"}`), nil), "input schema"},
		{"costly output", tool("cost", "x", obj, json.RawMessage(costly)), "output schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, refused := Admit("s", []*mcp.Tool{tc.tool}, nil)
			if tc.says == "" {
				if len(got) != 1 || len(refused) != 0 {
					t.Fatalf("admitted %v, refused %v", got, refused)
				}
				return
			}
			if len(got) != 0 || len(refused) != 1 || !strings.Contains(refused[0].Reason, tc.says) {
				t.Fatalf("admitted %v, refused %+v; want a refusal saying %q", got, refused, tc.says)
			}
		})
	}
}

func TestAdmitCapsAndOrder(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	var many []*mcp.Tool
	for i := range MaxTools + 3 {
		many = append(many, tool(fmt.Sprintf("t%03d", i), "x", obj, nil))
	}
	got, refused := Admit("s", many, nil)
	if len(got) != MaxTools || len(refused) != 3 || !strings.Contains(refused[0].Reason, "more than") {
		t.Fatalf("admitted %d, refused %+v", len(got), refused)
	}
	// the same tools in another order: the same outcome
	rev := append([]*mcp.Tool(nil), many...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	got2, refused2 := Admit("s", rev, nil)
	if fmt.Sprint(toolNames(got)) != fmt.Sprint(toolNames(got2)) || fmt.Sprint(refused) != fmt.Sprint(refused2) {
		t.Fatal("the order of tools/list changed what was admitted")
	}
	dup, refusedDup := Admit("s", []*mcp.Tool{tool("x", "a", obj, nil), tool("x", "b", obj, nil)}, nil)
	if len(dup) != 1 || len(refusedDup) != 1 || !strings.Contains(refusedDup[0].Reason, "listed twice") {
		t.Fatalf("duplicate: %v %v", dup, refusedDup)
	}
}

// FuzzAdmit feeds Admit what a server's tools/list could hold: whatever it admits has a
// name on the grammar, inert text and a compiled schema; nothing panics.
func FuzzAdmit(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}},{"name":"A","inputSchema":{"type":"object"}}]}`))
	f.Add([]byte(`{"tools":[{"name":"x.y","inputSchema":{"type":"object","properties":{"p":{"$ref":"#"}}},"outputSchema":{"type":"object"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var res mcp.ListToolsResult
		if json.Unmarshal(data, &res) != nil {
			return
		}
		got, refused := Admit("s", res.Tools, nil)
		seen := map[string]bool{}
		for _, tl := range got {
			if !toolNameRE().MatchString(tl.Name) || seen[registry.Fold(tl.Name)] || tl.input == nil {
				t.Fatalf("admitted %+v", tl)
			}
			seen[registry.Fold(tl.Name)] = true
		}
		if len(got)+len(refused) > len(res.Tools) {
			t.Fatalf("%d admitted and %d refused of %d", len(got), len(refused), len(res.Tools))
		}
	})
}
