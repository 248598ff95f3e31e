package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoStripper: the Node binary has no module.stripTypeScriptTypes (it is older than
// 22.13), so nothing was checked.
var ErrNoStripper = errors.New("this Node.js has no module.stripTypeScriptTypes (22.13 or later has it)")

// Bounds of the type-stripping check.
const (
	// MaxStripFiles is how many TypeScript files one check reads; the rest are not checked.
	MaxStripFiles = 200
	// stripTimeout bounds the Node process of one check.
	stripTimeout = 20 * time.Second
)

// StripFailure is a TypeScript file Node's type stripping refuses: a construct that needs
// code generated for it (an enum, a namespace with values, a parameter property), which
// Bun's transpiler runs and Node, which only strips types, cannot load.
type StripFailure struct {
	File    string `json:"file"` // slash-separated, relative to the folder checked
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

func (f StripFailure) String() string {
	at := f.File
	if f.Line > 0 {
		at += fmt.Sprintf(":%d", f.Line)
		if f.Column > 0 {
			at += fmt.Sprintf(":%d", f.Column)
		}
	}
	return at + ": " + f.Message
}

// TypeScriptFiles lists dir's .ts, .mts and .cts files (declaration files, node_modules and
// dot folders left out), sorted, at most MaxStripFiles; more reports that some were left.
func TypeScriptFiles(dir string) (files []string, more bool, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(name, ".d.ts") || strings.HasSuffix(name, ".d.mts") || strings.HasSuffix(name, ".d.cts") {
			return nil
		}
		switch filepath.Ext(name) {
		case ".ts", ".mts", ".cts":
			if len(files) == MaxStripFiles {
				more = true
				return filepath.SkipAll
			}
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, more, err
}

// stripScript runs module.stripTypeScriptTypes (strip-only, what Node does when it loads a
// .ts file) on each file named after `--` and prints one JSON array of the refusals, each
// with the first lines of its stack, which hold the line number, the source line (after the
// line before it) and a caret under the code.
const stripScript = `const { stripTypeScriptTypes } = require("node:module");
if (typeof stripTypeScriptTypes !== "function") process.exit(3);
const fs = require("node:fs");
const out = [];
for (const f of process.argv.slice(1)) {
  try { stripTypeScriptTypes(fs.readFileSync(f, "utf8"), { mode: "strip" }); }
  catch (e) { out.push({ file: f, message: String(e && e.message), stack: String(e && e.stack).split("\n").slice(0, 8) }); }
}
process.stdout.write(JSON.stringify(out));`

// CheckTypeStripping runs node's own type stripping over files (slash-separated, relative
// to dir) and returns the files it refuses. It runs no plugin code: the files are read as
// text and transformed, never loaded. A Node without module.stripTypeScriptTypes (before
// 22.13) is ErrNoStripper.
func CheckTypeStripping(ctx context.Context, node, dir string, files []string) ([]StripFailure, error) {
	if len(files) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, stripTimeout)
	defer cancel()
	args := append([]string{"--no-warnings", "-e", stripScript, "--"}, files...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 3 {
			return nil, ErrNoStripper
		}
		return nil, fmt.Errorf("check type stripping with %s: %w: %s", node, err, strings.TrimSpace(firstLine(stderr.String())))
	}
	var raw []struct {
		File    string   `json:"file"`
		Message string   `json:"message"`
		Stack   []string `json:"stack"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		return nil, fmt.Errorf("check type stripping with %s: its answer is not JSON: %w", node, err)
	}
	out := make([]StripFailure, 0, len(raw))
	for _, r := range raw {
		f := StripFailure{File: r.File, Message: r.Message}
		f.Line, f.Column = stackPosition(r.Stack)
		out = append(out, f)
	}
	return out, nil
}

// stackPosition reads where a stripping error points: its stack's first line ends in
// ":<line>", and a later line of only spaces and carets marks the column.
func stackPosition(stack []string) (line, col int) {
	if len(stack) == 0 {
		return 0, 0
	}
	if i := strings.LastIndexByte(stack[0], ':'); i >= 0 {
		_, _ = fmt.Sscanf(stack[0][i+1:], "%d", &line)
	}
	if line == 0 {
		return 0, 0
	}
	for _, l := range stack[1:] {
		if c := strings.IndexByte(l, '^'); c >= 0 && strings.Trim(l, " ^") == "" {
			return line, c + 1
		}
	}
	return line, 0
}
