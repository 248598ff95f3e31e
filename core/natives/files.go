package natives

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// fileTool is a read-only file tool: its Spec and how it runs inside an opened workspace.
type fileTool struct {
	spec Spec
	run  func(ctx context.Context, w *workspace, input json.RawMessage) (Result, error)
}

func (t fileTool) Spec() Spec { return t.spec }

func (t fileTool) Run(ctx context.Context, c Call) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	w, err := openWorkspace(c.Workspace)
	if err != nil {
		return Result{}, err
	}
	defer w.Close()
	return t.run(ctx, w, c.Input)
}

// decode reads a call's input; the schema was checked before, so a failure is the
// tool's own inconsistency or a caller that skipped validation.
func decode(name string, input json.RawMessage, v any) error {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if err := json.Unmarshal(input, v); err != nil {
		return fmt.Errorf("%s: decode the input: %w", name, err)
	}
	return nil
}

// failed is a Result the caller sees as the tool's error.
func failed(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// ReadFile returns the read_file tool: {file_path, offset?, limit?} reads lines of a text
// file in the workspace, numbered from 1, from line offset (default 1), at most limit
// lines (DefaultReadLines, at most MaxReadLines), each cut at MaxLineBytes.
func ReadFile() Tool {
	return fileTool{spec: Spec{
		Name:        "read_file",
		Description: "Read a text file in the workspace. Lines are numbered from 1; offset is the first line to read and limit how many lines.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"file_path":{"type":"string","minLength":1,"description":"the file, relative to the workspace or absolute inside it"},` +
			`"offset":{"type":"integer","minimum":1,"description":"first line to read (1-based)"},` +
			`"limit":{"type":"integer","minimum":1,"maximum":` + strconv.Itoa(MaxReadLines) + `,"description":"how many lines to read"}},` +
			`"required":["file_path"],"additionalProperties":false}`),
		AutoEligible: true, ReadOnly: true,
	}, run: readFile}
}

type readFileInput struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
}

func readFile(ctx context.Context, w *workspace, input json.RawMessage) (Result, error) {
	var in readFileInput
	if err := decode("read_file", input, &in); err != nil {
		return Result{}, err
	}
	rel, err := w.rel(in.FilePath)
	if err != nil {
		return Result{}, err
	}
	// Stat before opening: opening a FIFO or a device could block or never end.
	st, err := w.root.Stat(rel)
	if err != nil {
		if err := w.classify(rel, err); errors.Is(err, ErrOutsideWorkspace) {
			return Result{}, err
		}
		return failed("read_file: %s: %s", display(rel), describe(err)), nil
	}
	switch {
	case st.IsDir():
		return failed("read_file: %s is a directory; use list_dir", display(rel)), nil
	case !st.Mode().IsRegular():
		return failed("read_file: %s is not a regular file", display(rel)), nil
	}
	f, err := w.root.Open(rel)
	if err != nil {
		return failed("read_file: %s: %s", display(rel), describe(err)), nil
	}
	defer f.Close()
	offset, limit := max(in.Offset, 1), in.Limit
	if limit <= 0 {
		limit = DefaultReadLines
	}
	limit = min(limit, MaxReadLines)
	return readLines(ctx, f, rel, offset, limit)
}

func readLines(ctx context.Context, r io.Reader, rel string, offset, limit int) (Result, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(8000); bytes.IndexByte(head, 0) >= 0 {
		return failed("read_file: %s is a binary file", display(rel)), nil
	}
	out := newTextOut(MaxOutput)
	n, last := 0, 0
	for {
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return failed("read_file: %s: %s", display(rel), describe(err)), nil
		}
		n++
		if n%4096 == 0 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if n < offset {
			continue
		}
		if n >= offset+limit || !out.line(fmt.Sprintf("%6d\t%s", n, cutLine(line, MaxLineBytes))) {
			return Result{Text: out.String() + fmt.Sprintf("[more lines after line %d: read on with offset %d]\n", last, last+1)}, nil
		}
		last = n
	}
	if n == 0 {
		return Result{Text: fmt.Sprintf("[%s is empty]\n", display(rel))}, nil
	}
	if n < offset {
		return Result{Text: fmt.Sprintf("[%s has %d lines; offset %d is past its end]\n", display(rel), n, offset)}, nil
	}
	return Result{Text: out.String()}, nil
}

// readLine reads one line without its end, keeping at most MaxLineBytes+4 bytes of it.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf) < MaxLineBytes+4 {
			buf = append(buf, chunk[:min(len(chunk), MaxLineBytes+4-len(buf))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if err != nil && len(buf) > 0 && errors.Is(err, io.EOF) {
			return string(buf), nil
		}
		return string(buf), err
	}
}

// describe names a file error without the workspace's absolute path.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// ListDir returns the list_dir tool: {path} lists a directory of the workspace, sorted,
// directories with a trailing `/` and symbolic links with a trailing `@`, at most
// MaxEntries entries.
func ListDir() Tool {
	return fileTool{spec: Spec{
		Name:        "list_dir",
		Description: "List a directory in the workspace: directories end in /, symbolic links in @.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"the directory, relative to the workspace (\".\" for the workspace) or absolute inside it"}},` +
			`"required":["path"],"additionalProperties":false}`),
		AutoEligible: true, ReadOnly: true,
	}, run: listDir}
}

func listDir(ctx context.Context, w *workspace, input json.RawMessage) (Result, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := decode("list_dir", input, &in); err != nil {
		return Result{}, err
	}
	rel, err := w.rel(in.Path)
	if err != nil {
		return Result{}, err
	}
	entries, err := fs.ReadDir(w.root.FS(), rel)
	if err != nil {
		if err := w.classify(rel, err); errors.Is(err, ErrOutsideWorkspace) {
			return Result{}, err
		}
		return failed("list_dir: %s: %s", display(rel), describe(err)), nil
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	out := newTextOut(MaxOutput)
	for i, e := range entries {
		name := e.Name()
		switch {
		case e.Type()&os.ModeSymlink != 0:
			name += "@"
		case e.IsDir():
			name += "/"
		}
		if i == MaxEntries || !out.line(name) {
			return Result{Text: out.String() + fmt.Sprintf("[%d more entries not listed]\n", len(entries)-i)}, nil
		}
	}
	if len(entries) == 0 {
		return Result{Text: fmt.Sprintf("[%s is empty]\n", display(rel))}, nil
	}
	return Result{Text: out.String()}, nil
}
