package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestCheckTypeStripping runs the real Node over a folder: the enum and the parameter
// property are refused where they are, plain type annotations pass, and declaration files,
// node_modules and dot folders are not read.
func TestCheckTypeStripping(t *testing.T) {
	node := testenv.Node(t)
	dir := t.TempDir()
	for name, src := range map[string]string{
		"index.ts":            "import { c } from './lib/colors.ts';\nexport const n: number = 1;\n",
		"lib/colors.ts":       "// colors\nexport enum Color { Red, Green }\n",
		"lib/point.mts":       "export class P {\n  constructor(private x: number) {}\n}\n",
		"lib/types.d.ts":      "export enum Never { A }\n",
		"node_modules/x/y.ts": "export enum Dep { A }\n",
		".hidden/z.ts":        "export enum Hidden { A }\n",
		"readme.md":           "enum X {}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, more, err := TypeScriptFiles(dir)
	if err != nil || more {
		t.Fatal(err, more)
	}
	if want := []string{"index.ts", "lib/colors.ts", "lib/point.mts"}; !slices.Equal(files, want) {
		t.Fatalf("TypeScriptFiles = %q, want %q", files, want)
	}
	got, err := CheckTypeStripping(context.Background(), node.Path, dir, files)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"lib/colors.ts:2:8: TypeScript enum is not supported in strip-only mode",
		"lib/point.mts:2:23: TypeScript parameter property is not supported in strip-only mode",
	}
	var texts []string
	for _, f := range got {
		texts = append(texts, f.String())
	}
	if !slices.Equal(texts, want) {
		t.Errorf("failures:\n%q\nwant\n%q", texts, want)
	}
}

func TestStackPosition(t *testing.T) {
	for _, c := range []struct {
		stack     []string
		line, col int
	}{
		{[]string{":3", "enum A {}", "^^^^^^^^^"}, 3, 1},
		{[]string{":12", "  constructor(private x) {}", "              ^^^^^^^^^"}, 12, 15},
		{[]string{":2", "// the line before", "export enum A {}", "       ^^^^^^^^^", ""}, 2, 8},
		{[]string{"SyntaxError: x"}, 0, 0},
		{[]string{":4", "code", "not a caret"}, 4, 0},
		{nil, 0, 0},
	} {
		if l, col := stackPosition(c.stack); l != c.line || col != c.col {
			t.Errorf("stackPosition(%q) = %d:%d, want %d:%d", c.stack, l, col, c.line, c.col)
		}
	}
}
