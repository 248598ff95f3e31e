package gate

import (
	"context"
	"strings"
	"testing"
)

// TestMCPKeys pins an MCP server tool's approval: its card names the server and says it runs
// unsandboxed; a grant for the tool is bound to the server's identity digest, so a changed
// command, args, env names or cwd asks again; an extension tool of the same name is another
// key.
func TestMCPKeys(t *testing.T) {
	var cards []Card
	g := New(Ask, ApproverFunc(func(_ context.Context, c Card) (Decision, error) {
		cards = append(cards, c)
		return AllowToolForSession, nil
	}))
	req := Request{PluginID: "mcp:fs", ClosureSHA256: "id1", Tool: "read", Input: []byte(`{"p":1}`), Requirement: Required, MCP: true}
	for i, tc := range []struct {
		req  Request
		want Source
	}{
		{req, ByApprover},
		{withInput(req, `{"p":2}`), ByToolGrant},
		{withIdentity(req, "id2"), ByApprover},
		{Request{PluginID: "mcp:fs", ClosureSHA256: "id1", Tool: "read", Input: []byte(`{}`), Requirement: Required}, ByApprover},
	} {
		got, err := g.Check(context.Background(), tc.req, nil)
		if err != nil || got != tc.want {
			t.Fatalf("call %d: %q, %v; want %q", i, got, err, tc.want)
		}
	}
	c := cards[0]
	if c.Origin != OriginMCP || !strings.Contains(c.Title, "MCP server `fs`") || !strings.Contains(c.Title, "unsandboxed") ||
		!strings.HasPrefix(c.Key, "mcp:mcp:fs@id1:read:") || c.ToolKey != "tool:mcp:mcp:fs@id1:read" {
		t.Fatalf("card = %+v", c)
	}
	if s := req.Subject(); s != "tool `read` of MCP server `fs`" {
		t.Fatalf("subject %q", s)
	}
}

func withInput(r Request, in string) Request { r.Input = []byte(in); return r }

func withIdentity(r Request, id string) Request { r.ClosureSHA256 = id; return r }
