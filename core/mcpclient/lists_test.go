package mcpclient

import (
	"context"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/protocol"
)

// TestOfferAndRelays: Offer starts nothing and lists a running server's prompts (each with
// the name it is served under and its arguments in full), resources and templates;
// GetPrompt and ReadResource relay to the server under the content policy and
// max_result_bytes, and are logged; a server's error is named.
func TestOfferAndRelays(t *testing.T) {
	_, srv, logs := testSet(t, "tools", nil, Options{})
	ctx := context.Background()
	if _, live, err := srv.Offer(ctx); live || err != nil || srv.Status().State != StateIdle {
		t.Fatalf("Offer of an idle server: live %v, %v, state %s", live, err, srv.Status().State)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	o, live, err := srv.Offer(ctx)
	if !live || err != nil || o.Server != "t" || len(o.Prompts) != 1 || len(o.Resources) != 1 {
		t.Fatalf("Offer: %+v %v %v", o, live, err)
	}
	if p := o.Prompts[0]; p.Served != "mcp_t_greet" || len(p.Args) != 1 || p.Args[0].Name != "who" {
		t.Errorf("prompt %+v", p)
	}
	if r := o.Resources[0]; r.URI != "test://readme" || r.Name != "readme" {
		t.Errorf("resource %+v", r)
	}
	got, err := srv.GetPrompt(ctx, "greet", map[string]string{"who": "Ada"})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Role != "user" ||
		got.Messages[0].Content != (protocol.ContentBlock{Type: protocol.ContentText, Text: "hello"}) {
		t.Fatalf("GetPrompt: %+v %v", got, err)
	}
	blocks, err := srv.ReadResource(ctx, "test://readme")
	if err != nil || len(blocks) != 1 || blocks[0].Type != protocol.ContentResource || blocks[0].URI != "test://readme" || blocks[0].Text != "read me" {
		t.Fatalf("ReadResource: %+v %v", blocks, err)
	}
	if _, err := srv.GetPrompt(ctx, "nope", nil); err == nil || !strings.Contains(err.Error(), `mcp server "t" answered prompts/get with an error`) {
		t.Errorf("an unknown prompt: %v", err)
	}
	for _, want := range []string{"mcp prompts/get: server=t prompt=greet", "mcp resources/read: server=t uri=test://readme", "mcp prompts/get failed: server=t prompt=nope"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}

	_, small, _ := testSet(t, "tools", func(c *config.MCPServer) { c.MaxResultBytes = 10 }, Options{})
	if _, err := small.ReadResource(ctx, "test://readme"); err == nil || !strings.Contains(err.Error(), "max_result_bytes is 10") {
		t.Errorf("a result past max_result_bytes: %v", err)
	}
}
