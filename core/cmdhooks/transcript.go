package cmdhooks

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Transcript bounds: a session's transcript is rotated (the previous one kept as
// <file>.1) once it passes MaxTranscript bytes; one line's text is cut to MaxStdin.
const MaxTranscript = 8 << 20

// Transcripts keeps, per session, the transcript hooks are told of as transcript_path: a
// JSONL file in Claude Code's line format under Dir (an assistant line with the call's
// tool_use block before the PreToolUse hooks, a user line with its tool_result block after
// the call), mode 0600. It holds tool inputs and results.
type Transcripts struct {
	Dir string
	mu  sync.Mutex
}

var plainSession = lazyre.New(`^[A-Za-z0-9_-]{1,64}$`)

// Path is the transcript of session: <Dir>/<session>.jsonl, or the SHA-256 of a session
// label that is not a plain name.
func (t *Transcripts) Path(session string) string {
	if t == nil || t.Dir == "" {
		return ""
	}
	name := session
	if !plainSession().MatchString(name) {
		sum := sha256.Sum256([]byte(session))
		name = hex.EncodeToString(sum[:16])
	}
	return filepath.Join(t.Dir, name+".jsonl")
}

type transcriptLine struct {
	Type       string          `json:"type"`
	UUID       string          `json:"uuid"`
	SessionID  string          `json:"sessionId"`
	Cwd        string          `json:"cwd"`
	Timestamp  string          `json:"timestamp"`
	Message    transcriptMsg   `json:"message"`
	ToolResult json.RawMessage `json:"toolUseResult,omitempty"`
}

type transcriptMsg struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// ToolUse records the assistant line of a call (before its PreToolUse hooks run).
func (t *Transcripts) ToolUse(s Session, tool, toolUseID string, input json.RawMessage) error {
	in, err := hookInput(tool, s.Cwd, input)
	if err != nil || len(in) > MaxStdin {
		in = json.RawMessage(`{}`)
	}
	return t.write(s, transcriptLine{Type: "assistant", Message: transcriptMsg{Role: "assistant",
		Content: []any{toolUseBlock{Type: "tool_use", ID: toolUseID, Name: ToolName(tool), Input: in}}}})
}

// ToolResult records the user line of a call's result.
func (t *Transcripts) ToolResult(s Session, tool, toolUseID string, o Outcome) error {
	text := cutUTF8(o.text(), MaxStdin)
	l := transcriptLine{Type: "user", Message: transcriptMsg{Role: "user",
		Content: []any{toolResultBlock{Type: "tool_result", ToolUseID: toolUseID, Content: text, IsError: o.IsError}}}}
	if !o.IsError {
		if r := Response(tool, s.Cwd, Outcome{Content: o.Content, Structured: o.Structured}); len(r) <= MaxStdin {
			l.ToolResult = r
		}
	}
	return t.write(s, l)
}

func (t *Transcripts) write(s Session, l transcriptLine) error {
	path := t.Path(s.ID)
	if path == "" {
		return nil
	}
	l.SessionID, l.Cwd, l.Timestamp, l.UUID = s.ID, s.Cwd, time.Now().UTC().Format(time.RFC3339Nano), newUUID()
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.MkdirAll(t.Dir, 0o700); err != nil {
		return fmt.Errorf("the transcripts folder: %w", err)
	}
	if st, err := os.Stat(path); err == nil && st.Size()+int64(len(b)) > MaxTranscript {
		if err := os.Rename(path, path+".1"); err != nil {
			return fmt.Errorf("rotating the transcript: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("the transcript: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("the transcript: %w", err)
	}
	return f.Close()
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
