package natives

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanDiffGolden: the diff a write's card shows, for a new file, a replaced file, an
// edit in the middle, a replace_all and a change at the end.
func TestPlanDiffGolden(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	ws, _ := tree(t, map[string]string{"a.txt": "one\ntwo\n", "long.txt": long.String()})
	cases := []struct {
		name  string
		tool  Tool
		input string
	}{
		{"create", WriteFile(WriteOptions{}), `{"file_path":"new/b.txt","content":"hello\nworld\n"}`},
		{"replace whole", WriteFile(WriteOptions{}), `{"file_path":"a.txt","content":"one\n2\nthree\n"}`},
		{"empty the file", WriteFile(WriteOptions{}), `{"file_path":"a.txt","content":""}`},
		{"edit middle", EditFile(WriteOptions{}), `{"file_path":"long.txt","old_string":"line 6\n","new_string":"line six\nline 6.5\n"}`},
		{"replace all", EditFile(WriteOptions{}), `{"file_path":"long.txt","old_string":"line 1","new_string":"L1","replace_all":true}`},
		{"edit last", EditFile(WriteOptions{}), `{"file_path":"long.txt","old_string":"line 12\n","new_string":"line 12"}`},
	}
	var b bytes.Buffer
	for _, c := range cases {
		p, err := c.tool.(Planner).Plan(context.Background(), Call{Workspace: ws, Input: json.RawMessage(c.input)})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "== %s\n%s", c.name, p.Diff)
	}
	checkGolden(t, "plan_diff.golden", b.Bytes())
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "natives", name)
	if os.Getenv("CWX_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (record it with CWX_UPDATE_GOLDEN=1)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
