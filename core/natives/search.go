package natives

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// errStop ends a walk early (the output is full).
var errStop = errors.New("stop the walk")

// FileSearch returns the file_search tool: {pattern, path?} lists the files under path
// (default the workspace) whose path relative to it matches the glob pattern: `*`, `?`
// and `[...]` within one segment, `**` for any number of segments. At most MaxEntries
// paths, sorted; the walk does not follow symbolic links and skips `.git`.
func FileSearch() Tool {
	return fileTool{spec: Spec{
		Name:        "file_search",
		Description: "Find files in the workspace by glob pattern (e.g. **/*.go), relative to path.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"pattern":{"type":"string","minLength":1,"description":"glob; ** matches any number of directories"},` +
			`"path":{"type":"string","description":"directory to search, relative to the workspace or absolute inside it (default the workspace)"}},` +
			`"required":["pattern"],"additionalProperties":false}`),
		AutoEligible: true, ReadOnly: true,
	}, run: fileSearch}
}

func fileSearch(ctx context.Context, w *workspace, input json.RawMessage) (Result, error) {
	var in struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	if err := decode("file_search", input, &in); err != nil {
		return Result{}, err
	}
	glob := splitGlob(in.Pattern)
	if err := checkGlob(glob); err != nil {
		return failed("file_search: bad pattern %q: %s", in.Pattern, err), nil
	}
	out := newTextOut(MaxOutput)
	found := 0
	res, err := w.walk(ctx, in.Path, "file_search", func(rel, under string, d fs.DirEntry) error {
		if d.IsDir() || !matchGlob(glob, strings.Split(under, "/")) {
			return nil
		}
		found++
		if found > MaxEntries || !out.line(rel) {
			return errStop
		}
		return nil
	})
	if err != nil || res != nil {
		return deref(res), err
	}
	switch {
	case found > MaxEntries || out.cut:
		return Result{Text: out.String() + "[more files match: narrow the pattern or the path]\n"}, nil
	case found == 0:
		return Result{Text: "[no files match]\n"}, nil
	}
	return Result{Text: out.String()}, nil
}

func deref(r *Result) Result {
	if r == nil {
		return Result{}
	}
	return *r
}

// walk visits the entries under the path p of a call (the workspace for ""), in lexical
// order, without following symbolic links, skipping `.git`. visit gets the entry's path
// relative to the workspace and to p; errStop ends the walk. A Result is returned for a
// failure the caller should see (p missing, too many entries).
func (w *workspace) walk(ctx context.Context, p, tool string, visit func(rel, under string, d fs.DirEntry) error) (*Result, error) {
	start, err := w.rel(p)
	if err != nil {
		return nil, err
	}
	if _, err := fs.Stat(w.root.FS(), start); err != nil {
		if err := w.classify(start, err); errors.Is(err, ErrOutsideWorkspace) {
			return nil, err
		}
		r := failed("%s: %s: %s", tool, display(start), describe(err))
		return &r, nil
	}
	visited := 0
	err = fs.WalkDir(w.root.FS(), start, func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: skipped
		}
		if visited++; visited%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if visited > MaxVisited {
			return fmt.Errorf("%w: visited %d entries", errStop, MaxVisited)
		}
		if d.IsDir() && d.Name() == ".git" && rel != start {
			return fs.SkipDir
		}
		under := rel
		if start != "." {
			under = strings.TrimPrefix(strings.TrimPrefix(rel, start), "/")
		}
		if under == "" {
			return nil
		}
		return visit(rel, under, d)
	})
	switch {
	case errors.Is(err, errStop), err == nil:
		if visited > MaxVisited {
			r := failed("%s: searched %d entries and stopped: give a narrower path", tool, MaxVisited)
			return &r, nil
		}
		return nil, nil
	}
	return nil, err
}

// splitGlob splits a slash-separated glob into segments, dropping empty ones and `.`.
func splitGlob(p string) []string {
	var out []string
	for _, s := range strings.Split(strings.ReplaceAll(p, "\\", "/"), "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

func checkGlob(glob []string) error {
	if len(glob) == 0 {
		return errors.New("empty")
	}
	for _, s := range glob {
		if s == ".." {
			return errors.New("`..` is not allowed")
		}
		if _, err := path.Match(s, ""); err != nil {
			return err
		}
	}
	return nil
}

// matchGlob matches path segments against glob segments; `**` matches zero or more.
func matchGlob(glob, segs []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchGlob(glob[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], segs[0]); !ok {
			return false
		}
		glob, segs = glob[1:], segs[1:]
	}
	return len(segs) == 0
}

// GrepFiles returns the grep_files tool: {pattern, path?, glob?} prints the lines of the
// text files under path (default the workspace; a file is searched alone) that match the
// RE2 regular expression pattern, as `path:line:text`. glob filters the files: a pattern
// without `/` matches the file's name, one with `/` its path under path. At most
// MaxMatches lines, each cut at MaxLineBytes; binary files and files over MaxGrepFile
// are skipped.
func GrepFiles() Tool {
	return fileTool{spec: Spec{
		Name:        "grep_files",
		Description: "Search the text files of the workspace for a regular expression (RE2 syntax); prints path:line:text.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"pattern":{"type":"string","minLength":1,"description":"RE2 regular expression"},` +
			`"path":{"type":"string","description":"file or directory to search, relative to the workspace or absolute inside it (default the workspace)"},` +
			`"glob":{"type":"string","description":"only files matching this glob (e.g. *.go or src/**/*.ts)"}},` +
			`"required":["pattern"],"additionalProperties":false}`),
		AutoEligible: true, ReadOnly: true,
	}, run: grepFiles}
}

type grepRun struct {
	w     *workspace
	re    *regexp.Regexp
	glob  []string
	out   *textOut
	found int
}

func grepFiles(ctx context.Context, w *workspace, input json.RawMessage) (Result, error) {
	var in struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Glob    string `json:"glob"`
	}
	if err := decode("grep_files", input, &in); err != nil {
		return Result{}, err
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return failed("grep_files: bad pattern: %s", err), nil
	}
	g := &grepRun{w: w, re: re, out: newTextOut(MaxOutput)}
	if in.Glob != "" {
		if g.glob = splitGlob(in.Glob); checkGlob(g.glob) != nil {
			return failed("grep_files: bad glob %q", in.Glob), nil
		}
	}
	res, err := g.run(ctx, in.Path)
	if err != nil || res != nil {
		return deref(res), err
	}
	switch {
	case g.found > MaxMatches || g.out.cut:
		return Result{Text: g.out.String() + "[more lines match: narrow the pattern, the path or the glob]\n"}, nil
	case g.found == 0:
		return Result{Text: "[no lines match]\n"}, nil
	}
	return Result{Text: g.out.String()}, nil
}

func (g *grepRun) run(ctx context.Context, p string) (*Result, error) {
	start, err := g.w.rel(p)
	if err != nil {
		return nil, err
	}
	if st, err := fs.Stat(g.w.root.FS(), start); err == nil && !st.IsDir() {
		if !st.Mode().IsRegular() {
			r := failed("grep_files: %s is not a regular file", display(start))
			return &r, nil
		}
		if err := g.file(start); err != nil && !errors.Is(err, errStop) {
			return nil, err
		}
		return nil, nil
	}
	return g.w.walk(ctx, p, "grep_files", func(rel, under string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !g.selected(under) {
			return nil // directories, links, FIFOs and devices are not read
		}
		return g.file(rel)
	})
}

func (g *grepRun) selected(under string) bool {
	switch {
	case g.glob == nil:
		return true
	case len(g.glob) == 1:
		return matchGlob(g.glob, []string{path.Base(under)})
	}
	return matchGlob(g.glob, strings.Split(under, "/"))
}

// file greps one file; errStop once the output is full. Unreadable files are skipped.
func (g *grepRun) file(rel string) error {
	f, err := g.w.root.Open(rel)
	if err != nil {
		if err := g.w.classify(rel, err); errors.Is(err, ErrOutsideWorkspace) {
			return err
		}
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > MaxGrepFile {
		return nil
	}
	br := bufio.NewReader(f)
	if head, _ := br.Peek(8000); bytes.IndexByte(head, 0) >= 0 {
		return nil
	}
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err != nil {
			return nil
		}
		if !g.re.MatchString(line) {
			continue
		}
		g.found++
		if g.found > MaxMatches || !g.out.line(fmt.Sprintf("%s:%d:%s", rel, n, cutLine(line, MaxLineBytes))) {
			return errStop
		}
	}
}
