package mcpserve

import (
	"encoding/json"
	"testing"

	"github.com/cwx-dev/cwx/core"
)

// TestToolResultContent: every content block type passes through as the MCP content of the
// same type, base64 data on the wire as it came.
func TestToolResultContent(t *testing.T) {
	res := core.ToolResult{Content: []core.ContentBlock{
		{Type: core.ContentText, Text: "hi"},
		{Type: core.ContentImage, Data: "iVBORw0KGgo=", MimeType: "image/png"},
		{Type: core.ContentAudio, Data: "UklGRg==", MimeType: "audio/wav"},
		{Type: core.ContentResourceLink, URI: "file:///w/a.txt", Name: "a.txt", MimeType: "text/plain"},
		{Type: core.ContentResource, URI: "file:///w/b.txt", Text: "inline"},
		{Type: core.ContentResource, URI: "file:///w/c.bin", Blob: "AAEC", MimeType: "application/octet-stream"},
	}}
	want := []string{
		`{"type":"text","text":"hi"}`,
		`{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}`,
		`{"type":"audio","mimeType":"audio/wav","data":"UklGRg=="}`,
		`{"type":"resource_link","mimeType":"text/plain","uri":"file:///w/a.txt","name":"a.txt"}`,
		`{"type":"resource","resource":{"uri":"file:///w/b.txt","text":"inline"}}`,
		`{"type":"resource","resource":{"uri":"file:///w/c.bin","mimeType":"application/octet-stream","blob":"AAEC"}}`,
	}
	out := toolResult(res)
	if len(out.Content) != len(want) {
		t.Fatalf("%d blocks; want %d", len(out.Content), len(want))
	}
	for i, c := range out.Content {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want[i] {
			t.Errorf("block %d = %s\nwant      %s", i+1, b, want[i])
		}
	}
}
