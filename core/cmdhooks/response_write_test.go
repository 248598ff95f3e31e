package cmdhooks

import (
	"encoding/json"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TestWriteEditShapes: write_file and edit_file are Write and Edit to hooks, their
// tool_input's file_path is absolute, and their tool_response is Claude Code's shape as the
// native gave it (an error result is MCP's CallToolResult).
func TestWriteEditShapes(t *testing.T) {
	for native, cc := range map[string]string{"write_file": "Write", "edit_file": "Edit"} {
		if ToolName(native) != cc || NativeName(cc) != native {
			t.Errorf("%s: shown as %q, %q read back as %q", native, ToolName(native), cc, NativeName(cc))
		}
	}
	st := `{"type":"create","filePath":"/w/a.txt","content":"x","structuredPatch":[],"originalFile":null}`
	if got := string(Response("write_file", "/w", Outcome{Structured: json.RawMessage(st)})); got != st {
		t.Errorf("write_file: %s", got)
	}
	fail := Outcome{IsError: true, Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: "no match"}}}
	if got := string(Response("edit_file", "/w", fail)); got != `{"content":[{"type":"text","text":"no match"}],"isError":true}` {
		t.Errorf("edit_file error: %s", got)
	}
	in, err := hookInput("edit_file", "/w", json.RawMessage(`{"file_path":"a.txt","old_string":"a","new_string":"b"}`))
	if err != nil || string(in) != `{"file_path":"/w/a.txt","old_string":"a","new_string":"b"}` {
		t.Errorf("tool_input %s %v", in, err)
	}
}
