package natives

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// MaxWriteBytes bounds the file write_file writes and the file edit_file reads and writes.
const MaxWriteBytes = 4 << 20

// Planner is a Tool that changes files and says, before the gate is asked, what a call
// would change: the core puts the Plan on the approval card and forces a card for a
// protected path. Plan must not change anything.
type Planner interface {
	Plan(ctx context.Context, call Call) (Plan, error)
}

// Plan is what a call of a Planner would do.
type Plan struct {
	// Protected says why the path is protected (ProtectedPaths), or "": such a call is
	// Forced in every posture.
	Protected string
	// Diff is the change as a unified diff, bounded at MaxDiffBytes.
	Diff string
}

// WriteOptions configure write_file and edit_file.
type WriteOptions struct {
	// Protected are absolute files and folders no write may reach without a card, beside
	// the built-in list: the configured hooks files, $CWX_HOME.
	Protected []string
	// beforeRename, when set (tests), runs after the temporary file is written and before
	// it replaces the target; an error is a crash at that point.
	beforeRename func(tmp string) error
}

// change is what one call of write_file or edit_file would make of one file.
type change struct {
	rel      string // the file written, links resolved, relative to the workspace
	old, new string
	exists   bool
	perm     fs.FileMode
	resp     any // Claude Code's tool_response shape, without the patch
}

// writeTool is write_file or edit_file.
type writeTool struct {
	spec Spec
	opts WriteOptions
	plan func(w *workspace, input json.RawMessage) (change, Result, error)
}

// WriteFile returns the write_file tool: {file_path, content} writes content (at most
// MaxWriteBytes) to a file of the workspace, creating it and its folders if needed, by an
// atomic replace.
func WriteFile(o WriteOptions) Tool {
	return writeTool{opts: o, plan: planWrite, spec: Spec{
		Name:        "write_file",
		Description: "Write a file in the workspace, replacing it whole (created with its folders when missing).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"file_path":{"type":"string","minLength":1,"description":"the file, relative to the workspace or absolute inside it"},` +
			`"content":{"type":"string","description":"the file's whole new content"}},` +
			`"required":["file_path","content"],"additionalProperties":false}`),
		Writes: true,
	}}
}

// EditFile returns the edit_file tool: {file_path, old_string, new_string, replace_all?}
// replaces the exact text old_string of an existing file by new_string; old_string must
// occur exactly once unless replace_all is true.
func EditFile(o WriteOptions) Tool {
	return writeTool{opts: o, plan: planEdit, spec: Spec{
		Name:        "edit_file",
		Description: "Replace exact text in a file of the workspace: old_string must occur once, or set replace_all.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"file_path":{"type":"string","minLength":1,"description":"the file, relative to the workspace or absolute inside it"},` +
			`"old_string":{"type":"string","minLength":1,"description":"the exact text to replace"},` +
			`"new_string":{"type":"string","description":"the text to put in its place"},` +
			`"replace_all":{"type":"boolean","description":"replace every occurrence (default: old_string must be unique)"}},` +
			`"required":["file_path","old_string","new_string"],"additionalProperties":false}`),
		Writes: true,
	}}
}

func (t writeTool) Spec() Spec { return t.spec }

// Plan is Planner's: the change, its diff and whether its path is protected. A failure
// the caller may recover from (no match, a missing file) has an empty Plan: the call
// fails the same way when it runs.
func (t writeTool) Plan(ctx context.Context, c Call) (Plan, error) {
	if err := ctx.Err(); err != nil {
		return Plan{}, err
	}
	w, err := openWorkspace(c.Workspace)
	if err != nil {
		return Plan{}, err
	}
	defer w.Close()
	ch, fail, err := t.plan(w, c.Input)
	if err == nil && !fail.IsError {
		fail = t.linkedToProtected(w, ch.rel, c.Input)
	}
	switch {
	case err != nil:
		return Plan{}, err
	case fail.IsError:
		// The call will fail as it runs; whether its path is protected does not depend on
		// that, and the card still says so.
		return Plan{Protected: t.protection(w, "", c.Input)}, nil
	}
	return Plan{Protected: t.protection(w, ch.rel, c.Input), Diff: unified(ch.rel, !ch.exists, hunks(ch.old, ch.new))}, nil
}

// linkedToProtected refuses a write whose named path is ordinary but which reaches a
// protected one through a symbolic link (of the file or of a folder above it, perhaps put
// there after the card was shown): such a write is refused in every posture; the caller
// may write the protected path by its name, which asks.
func (t writeTool) linkedToProtected(w *workspace, rel string, input json.RawMessage) Result {
	var in struct {
		FilePath string `json:"file_path"`
	}
	_ = json.Unmarshal(input, &in)
	named, err := w.rel(in.FilePath)
	if err != nil || protection(named, nil, nil) != "" {
		return Result{}
	}
	base, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		base = w.dir
	}
	full, suffix := filepath.Join(w.dir, filepath.FromSlash(rel)), ""
	for {
		real, err := filepath.EvalSymlinks(full)
		if err == nil {
			full = filepath.Join(real, suffix)
			break
		}
		if full == w.dir || full == filepath.Dir(full) {
			return Result{}
		}
		suffix = filepath.Join(filepath.Base(full), suffix)
		full = filepath.Dir(full)
	}
	r, ok := within(base, full)
	if !ok {
		return Result{}
	}
	if why := protection(filepath.ToSlash(r), []string{full}, t.opts.Protected); why != "" {
		return failed("%s: %s leads through a symbolic link to %s, and %s; write it by its own name", t.spec.Name, display(named), filepath.ToSlash(r), why)
	}
	return Result{}
}

// protection checks both the path the call names and the file it reaches.
func (t writeTool) protection(w *workspace, rel string, input json.RawMessage) string {
	var in struct {
		FilePath string `json:"file_path"`
	}
	_ = json.Unmarshal(input, &in)
	named, err := w.rel(in.FilePath)
	if err != nil {
		named = rel
	}
	if rel == "" {
		rel = named
	}
	abs := []string{filepath.Join(w.dir, filepath.FromSlash(named)), filepath.Join(w.dir, filepath.FromSlash(rel))}
	if real, err := filepath.EvalSymlinks(w.dir); err == nil {
		abs = append(abs, filepath.Join(real, filepath.FromSlash(rel)))
	}
	if why := protection(named, abs, t.opts.Protected); why != "" {
		return why
	}
	return protection(rel, abs, t.opts.Protected)
}

func (t writeTool) Run(ctx context.Context, c Call) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	w, err := openWorkspace(c.Workspace)
	if err != nil {
		return Result{}, err
	}
	defer w.Close()
	ch, fail, err := t.plan(w, c.Input)
	if err != nil || fail.IsError {
		return fail, err
	}
	if fail := t.linkedToProtected(w, ch.rel, c.Input); fail.IsError {
		return fail, nil
	}
	if err := replace(w.root, ch.rel, []byte(ch.new), ch.perm, t.opts.beforeRename); err != nil {
		if err := w.classifyWrite(ch.rel, err); errors.Is(err, ErrOutsideWorkspace) {
			return Result{}, err
		}
		return failed("%s: %s: %s", t.spec.Name, display(ch.rel), describe(err)), nil
	}
	hs := hunks(ch.old, ch.new)
	st, err := json.Marshal(withPatch(ch.resp, hs))
	if err != nil {
		return Result{}, fmt.Errorf("%s: encode the result: %w", t.spec.Name, err)
	}
	verb := "updated"
	if !ch.exists {
		verb = "created"
	}
	text := fmt.Sprintf("%s %s (%d bytes)\n", verb, display(ch.rel), len(ch.new))
	return Result{Text: text, Structured: st}, nil
}

// target resolves the file a call names: a symbolic link is followed to the file it names,
// which must lie in the workspace; the result is a regular file or nothing yet.
func (w *workspace) target(name, rel string) (string, fs.FileInfo, Result, error) {
	st, err := w.root.Lstat(rel)
	if err == nil && st.Mode()&fs.ModeSymlink != 0 {
		real, rerr := filepath.EvalSymlinks(filepath.Join(w.dir, filepath.FromSlash(rel)))
		if rerr != nil {
			if w.escapes(rel) {
				return "", nil, Result{}, fmt.Errorf("%w: %s leads out of it", ErrOutsideWorkspace, rel)
			}
			return "", nil, failed("%s: %s is a symbolic link to a missing file; write the file it names", name, display(rel)), nil
		}
		base, berr := filepath.EvalSymlinks(w.dir)
		if berr != nil {
			base = w.dir
		}
		r, ok := within(base, real)
		if !ok {
			return "", nil, Result{}, fmt.Errorf("%w: %s leads out of it", ErrOutsideWorkspace, rel)
		}
		rel = filepath.ToSlash(r)
		st, err = w.root.Lstat(rel)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rel, nil, Result{}, nil
	case err != nil:
		if err := w.classifyWrite(rel, err); errors.Is(err, ErrOutsideWorkspace) {
			return "", nil, Result{}, err
		}
		return "", nil, failed("%s: %s: %s", name, display(rel), describe(err)), nil
	case rel == ".":
		return "", nil, failed("%s: the workspace itself is not a file", name), nil
	case st.IsDir():
		return "", nil, failed("%s: %s is a directory", name, display(rel)), nil
	case !st.Mode().IsRegular():
		return "", nil, failed("%s: %s is not a regular file", name, display(rel)), nil
	}
	return rel, st, Result{}, nil
}

// classifyWrite is classify for a file that may not exist yet: rel or a folder above it
// leading out of the workspace makes err ErrOutsideWorkspace.
func (w *workspace) classifyWrite(rel string, err error) error {
	for p := rel; err != nil && p != "." && p != "/"; p = path.Dir(p) {
		if w.escapes(p) {
			return fmt.Errorf("%w: %s leads out of it", ErrOutsideWorkspace, rel)
		}
	}
	return err
}

// readBounded reads a regular file of the workspace, at most MaxWriteBytes.
func (w *workspace) readBounded(name, rel string) (string, Result) {
	f, err := w.root.Open(rel)
	if err != nil {
		return "", failed("%s: %s: %s", name, display(rel), describe(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxWriteBytes+1))
	switch {
	case err != nil:
		return "", failed("%s: %s: %s", name, display(rel), describe(err))
	case len(b) > MaxWriteBytes:
		return "", failed("%s: %s is larger than %d bytes", name, display(rel), MaxWriteBytes)
	}
	return string(b), Result{}
}

type writeInput struct {
	FilePath string  `json:"file_path"`
	Content  *string `json:"content"`
}

func planWrite(w *workspace, input json.RawMessage) (change, Result, error) {
	var in writeInput
	if err := decode("write_file", input, &in); err != nil {
		return change{}, Result{}, err
	}
	if in.Content == nil {
		return change{}, failed("write_file: content is required"), nil
	}
	if len(*in.Content) > MaxWriteBytes {
		return change{}, failed("write_file: content is %d bytes; at most %d may be written", len(*in.Content), MaxWriteBytes), nil
	}
	rel, err := w.rel(in.FilePath)
	if err != nil {
		return change{}, Result{}, err
	}
	rel, st, fail, err := w.target("write_file", rel)
	if err != nil || fail.IsError {
		return change{}, fail, err
	}
	ch := change{rel: rel, new: *in.Content, perm: 0o644}
	resp := writeResponse{Type: "create", FilePath: filepath.Join(w.dir, filepath.FromSlash(rel)), Content: ch.new}
	if st != nil {
		old, fail := w.readBounded("write_file", rel)
		if fail.IsError {
			return change{}, fail, nil
		}
		ch.old, ch.exists, ch.perm = old, true, st.Mode().Perm()
		resp.Type, resp.OriginalFile = "update", &ch.old
	}
	ch.resp = resp
	return ch, Result{}, nil
}

type editInput struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func planEdit(w *workspace, input json.RawMessage) (change, Result, error) {
	var in editInput
	if err := decode("edit_file", input, &in); err != nil {
		return change{}, Result{}, err
	}
	rel, err := w.rel(in.FilePath)
	if err != nil {
		return change{}, Result{}, err
	}
	rel, st, fail, err := w.target("edit_file", rel)
	if err != nil || fail.IsError {
		return change{}, fail, err
	}
	if st == nil {
		return change{}, failed("edit_file: %s does not exist; create it with write_file", display(rel)), nil
	}
	old, fail := w.readBounded("edit_file", rel)
	if fail.IsError {
		return change{}, fail, nil
	}
	n := strings.Count(old, in.OldString)
	switch {
	case in.OldString == "":
		return change{}, failed("edit_file: old_string is empty; give the exact text to replace"), nil
	case in.OldString == in.NewString:
		return change{}, failed("edit_file: old_string and new_string are the same; nothing would change"), nil
	case n == 0:
		return change{}, failed("edit_file: old_string was not found in %s; read the file and copy the text exactly, spaces and line ends included", display(rel)), nil
	case n > 1 && !in.ReplaceAll:
		return change{}, failed("edit_file: old_string occurs %d times in %s; add surrounding lines to make it unique, or set replace_all", n, display(rel)), nil
	}
	var out string
	if in.ReplaceAll {
		out = strings.ReplaceAll(old, in.OldString, in.NewString)
	} else {
		out = strings.Replace(old, in.OldString, in.NewString, 1)
	}
	if len(out) > MaxWriteBytes {
		return change{}, failed("edit_file: %s would be %d bytes; at most %d may be written", display(rel), len(out), MaxWriteBytes), nil
	}
	resp := editResponse{FilePath: filepath.Join(w.dir, filepath.FromSlash(rel)), OldString: in.OldString, NewString: in.NewString,
		OriginalFile: old, ReplaceAll: in.ReplaceAll}
	return change{rel: rel, old: old, new: out, exists: true, perm: st.Mode().Perm(), resp: resp}, Result{}, nil
}

// Claude Code's tool_response shapes of Write and Edit, carried as the Result's
// Structured (package cmdhooks passes them to hooks as they are).
type (
	writeResponse struct {
		Type            string  `json:"type"` // create or update
		FilePath        string  `json:"filePath"`
		Content         string  `json:"content"`
		StructuredPatch []Hunk  `json:"structuredPatch"`
		OriginalFile    *string `json:"originalFile"`
	}
	editResponse struct {
		FilePath        string `json:"filePath"`
		OldString       string `json:"oldString"`
		NewString       string `json:"newString"`
		OriginalFile    string `json:"originalFile"`
		StructuredPatch []Hunk `json:"structuredPatch"`
		UserModified    bool   `json:"userModified"`
		ReplaceAll      bool   `json:"replaceAll"`
	}
)

func withPatch(resp any, hs []Hunk) any {
	switch r := resp.(type) {
	case writeResponse:
		r.StructuredPatch = hs
		return r
	case editResponse:
		r.StructuredPatch = hs
		return r
	}
	return resp
}

// replace writes data to the workspace file rel by an atomic replace: a temporary file in
// the same folder, synced, then renamed over rel. The rename replaces the directory entry,
// so a hard link's other names keep the old content and a symbolic link at rel (the
// caller resolved it) is never written through. On any failure the temporary file is
// removed and rel is as it was.
func replace(root *os.Root, rel string, data []byte, perm fs.FileMode, beforeRename func(string) error) (err error) {
	dir := path.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return err
	}
	tmp := path.Join(dir, "."+path.Base(rel)+".cwx-"+hex.EncodeToString(suffix[:])+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = root.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && beforeRename != nil {
		err = beforeRename(tmp)
	}
	if err != nil {
		return err
	}
	return root.Rename(tmp, rel)
}
