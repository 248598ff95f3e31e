package cmdhooks

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

// TestTranscript: a session's transcript is Claude Code's JSONL (an assistant line with the
// tool_use block, a user line with the tool_result block), mode 0600, named safely for any
// session label, and rotated past MaxTranscript.
func TestTranscript(t *testing.T) {
	tr := &Transcripts{Dir: filepath.Join(t.TempDir(), "transcripts")}
	s := Session{ID: "s-1", Cwd: "/w"}
	s.TranscriptPath = tr.Path(s.ID)
	if s.TranscriptPath != filepath.Join(tr.Dir, "s-1.jsonl") {
		t.Fatal(s.TranscriptPath)
	}
	if p := tr.Path("../../etc/x"); filepath.Dir(p) != tr.Dir || strings.Contains(filepath.Base(p), "..") {
		t.Fatalf("label path %s", p)
	}
	if (*Transcripts)(nil).Path("x") != "" {
		t.Fatal("a nil Transcripts has a path")
	}
	id := ToolUseID("c1")
	if err := tr.ToolUse(s, "read_file", id, json.RawMessage(`{"file_path":"a.txt"}`)); err != nil {
		t.Fatal(err)
	}
	if err := tr.ToolResult(s, "read_file", id, Outcome{Content: []protocol.ContentBlock{{Type: protocol.ContentText, Text: "     1\talpha\n"}}}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(s.TranscriptPath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", st, err)
	}
	f, err := os.Open(s.TranscriptPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 2 || lines[0]["type"] != "assistant" || lines[1]["type"] != "user" || lines[0]["sessionId"] != "s-1" {
		t.Fatalf("%v", lines)
	}
	use := lines[0]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	res := lines[1]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if use["type"] != "tool_use" || use["id"] != id || use["name"] != "Read" || use["input"].(map[string]any)["file_path"] != "/w/a.txt" ||
		res["type"] != "tool_result" || res["tool_use_id"] != id || res["is_error"] != false {
		t.Fatalf("%v\n%v", use, res)
	}

	// rotation: a file at the bound moves to .1 and a new one starts
	if err := os.WriteFile(s.TranscriptPath, make([]byte, MaxTranscript), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tr.ToolUse(s, "shell", id, json.RawMessage(`{"command":"ls"}`)); err != nil {
		t.Fatal(err)
	}
	old, err1 := os.Stat(s.TranscriptPath + ".1")
	cur, err2 := os.Stat(s.TranscriptPath)
	if err1 != nil || err2 != nil || old.Size() != MaxTranscript || cur.Size() >= 4096 {
		t.Fatalf("rotation: %v %v", err1, err2)
	}
}
