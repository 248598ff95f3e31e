package cmdhooks

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/cwx-dev/cwx/core/protocol"
)

// Outcome is a call's result as the core has it, before it is put in Claude Code's shape.
type Outcome struct {
	Content    []protocol.ContentBlock
	IsError    bool
	Structured json.RawMessage
	// Streams is shell's stdout and stderr apart (natives.Result.Streams), for Bash's
	// tool_response; nil when they were not kept apart (then the text is all stdout).
	Streams *Streams
	// Truncated says the text was cut to keep the event within MaxStdin.
	Truncated bool
}

// Streams are a command's stdout and stderr apart; Truncated says some was not kept.
type Streams struct {
	Stdout, Stderr string
	Truncated      bool
}

func (o Outcome) text() string {
	var b strings.Builder
	for i, c := range o.Content {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// Claude Code's tool_response shapes for the natives (README.md, “Command hooks”).
type (
	bashResponse struct {
		Stdout      string `json:"stdout"`
		Stderr      string `json:"stderr"`
		Interrupted bool   `json:"interrupted"`
		IsImage     bool   `json:"isImage"`
		Truncated   bool   `json:"truncated,omitempty"`
	}
	readResponse struct {
		Type string   `json:"type"`
		File readFile `json:"file"`
	}
	readFile struct {
		FilePath   string `json:"filePath"`
		Content    string `json:"content"`
		NumLines   int    `json:"numLines"`
		StartLine  int    `json:"startLine"`
		TotalLines int    `json:"totalLines"`
		Truncated  bool   `json:"truncated,omitempty"`
	}
	grepResponse struct {
		Mode      string   `json:"mode"`
		NumFiles  int      `json:"numFiles"`
		Filenames []string `json:"filenames"`
		Content   string   `json:"content"`
		NumLines  int      `json:"numLines"`
		Truncated bool     `json:"truncated,omitempty"`
	}
	globResponse struct {
		Filenames  []string `json:"filenames"`
		DurationMs int      `json:"durationMs"`
		NumFiles   int      `json:"numFiles"`
		Truncated  bool     `json:"truncated"`
	}
	// mcpResponse is MCP's CallToolResult, which Claude Code passes for an MCP tool.
	mcpResponse struct {
		Content           []protocol.ContentBlock `json:"content"`
		IsError           bool                    `json:"isError,omitempty"`
		StructuredContent json.RawMessage         `json:"structuredContent,omitempty"`
		Truncated         bool                    `json:"truncated,omitempty"`
	}
)

// Response is the tool_response of a call of tool (its cwx name) that returned o, in the
// shape Claude Code gives the same tool: Bash {stdout, stderr, interrupted, isImage}
// (o.Streams apart; without them the text is all stdout), Read {type, file: {filePath,
// content, numLines, startLine, totalLines}}, Grep in content mode {mode, numFiles,
// filenames, content, numLines}, Glob {filenames, durationMs, numFiles, truncated} with
// absolute names, LS its listing as a string, Write {type, filePath, content,
// structuredPatch, originalFile} and Edit {filePath, oldString, newString, originalFile,
// structuredPatch, userModified, replaceAll} as the native gave them; an extension tool's is MCP's CallToolResult
// {content, isError, structuredContent}. cwd makes paths absolute.
func Response(tool, cwd string, o Outcome) json.RawMessage {
	text := o.text()
	var v any
	switch tool {
	case "shell":
		r := bashResponse{Stdout: text, Truncated: o.Truncated}
		if st := o.Streams; st != nil {
			r.Stdout, r.Stderr, r.Truncated = st.Stdout, st.Stderr, o.Truncated || st.Truncated
		}
		var st struct {
			TimedOut bool `json:"timed_out"`
		}
		if json.Unmarshal(o.Structured, &st) == nil {
			r.Interrupted = st.TimedOut
		}
		v = r
	case "read_file":
		v = readShape(text, o.Truncated)
	case "grep_files":
		r := grepResponse{Mode: "content", Filenames: []string{}, Truncated: o.Truncated}
		seen := map[string]bool{}
		var lines []string
		for _, l := range splitLines(text) {
			if strings.HasPrefix(l, "[") {
				r.Truncated = true
				continue
			}
			lines = append(lines, l)
			if name, _, ok := strings.Cut(l, ":"); ok && !seen[name] {
				seen[name] = true
				r.Filenames = append(r.Filenames, abs(cwd, name))
			}
		}
		r.Content, r.NumLines, r.NumFiles = strings.Join(lines, "\n"), len(lines), len(r.Filenames)
		v = r
	case "file_search":
		r := globResponse{Filenames: []string{}, Truncated: o.Truncated}
		for _, l := range splitLines(text) {
			if strings.HasPrefix(l, "[") {
				r.Truncated = true
				continue
			}
			r.Filenames = append(r.Filenames, abs(cwd, l))
		}
		r.NumFiles = len(r.Filenames)
		v = r
	case "list_dir":
		v = text
	case "write_file", "edit_file":
		// The native's Structured is already Claude Code's Write and Edit shape.
		if len(o.Structured) > 0 && json.Valid(o.Structured) && !o.IsError {
			return o.Structured
		}
		fallthrough
	default:
		content := o.Content
		if content == nil {
			content = []protocol.ContentBlock{}
		}
		v = mcpResponse{Content: content, IsError: o.IsError, StructuredContent: o.Structured, Truncated: o.Truncated}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

// readShape parses read_file's numbered lines ("%6d\t<line>") back into the file's text.
func readShape(text string, cut bool) readResponse {
	f := readFile{Truncated: cut}
	var lines []string
	for _, l := range splitLines(text) {
		num, rest, ok := strings.Cut(l, "\t")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if !ok || err != nil {
			f.Truncated = f.Truncated || strings.HasPrefix(l, "[more lines")
			continue
		}
		if f.StartLine == 0 {
			f.StartLine = n
		}
		f.TotalLines = n
		lines = append(lines, rest)
	}
	f.Content, f.NumLines = strings.Join(lines, "\n"), len(lines)
	if f.StartLine == 0 {
		f.StartLine = 1
	}
	return readResponse{Type: "text", File: f}
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func abs(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

// ToolUseID is the tool_use_id hooks see for the call callID, shaped as Claude Code's
// (toolu_01 and 22 letters and digits): the same for the PreToolUse and PostToolUse hooks
// of one call, and, salted per process, unique across the calls of every process.
func ToolUseID(callID string) string {
	salt := processSalt()
	sum := sha256.Sum256(append(salt[:], callID...))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 0, 30)
	b = append(b, "toolu_01"...)
	for _, c := range sum[:22] {
		b = append(b, alphabet[int(c)%len(alphabet)])
	}
	return string(b)
}

var processSalt = sync.OnceValue(func() [32]byte {
	var s [32]byte
	_, _ = rand.Read(s[:]) // never fails (crypto/rand)
	return s
})

// ProcessSessionID is the session_id of a process's calls that name no session: a
// one-shot `cwx tool call`, a REPL or a `serve --mcp` process is a session of its own. It
// is a random UUID (version 4), as Claude Code's session ids are.
var ProcessSessionID = sync.OnceValue(newUUID)

// Claude Code's permission modes.
const (
	PermissionDefault     = "default"
	PermissionPlan        = "plan"
	PermissionAcceptEdits = "acceptEdits"
	PermissionDontAsk     = "dontAsk"
	PermissionBypass      = "bypassPermissions"
)

// PermissionMode is Claude Code's name of cwx's approval posture: ask is default (a card
// for what needs one), auto is bypassPermissions (approved without asking; shell's
// Forced card still asks), deny is dontAsk (whatever is not approved without a card is
// refused). cwx has no posture that plan or acceptEdits name.
func PermissionMode(posture string) string {
	switch posture {
	case "auto":
		return PermissionBypass
	case "deny":
		return PermissionDontAsk
	}
	return PermissionDefault
}
