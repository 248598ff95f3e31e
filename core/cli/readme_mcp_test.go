package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// mcpRecipe is the README's .mcp.json block, after its marker comment.
var mcpRecipe = regexp.MustCompile("(?s)<!-- mcp-recipe:[^>]*-->\n```json\n(.*?)```")

// TestREADMEMCPRecipe starts `cwx serve --mcp` exactly as the README's .mcp.json recipe
// says (its command replaced by the binary under test, its CWX_HOME by a test home) with the
// TypeScript SDK's client, from a project folder: the native read_file reads a file of that
// folder, the workspace, after an approval card reached the client through elicitation.
func TestREADMEMCPRecipe(t *testing.T) {
	requireTSClient(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := mcpRecipe.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no mcp-recipe block")
	}
	var recipe struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(m[1], &recipe); err != nil {
		t.Fatalf("the README's recipe is not JSON: %v\n%s", err, m[1])
	}
	s, ok := recipe.MCPServers["cwx"]
	if !ok || s.Command != "/abs/path/to/cwx" || strings.Join(s.Args, " ") != "serve --mcp" || s.Env["CWX_HOME"] == "" {
		t.Fatalf("the recipe's server: %+v", recipe)
	}
	bin := testenv.BuildCWX(t, "")
	rt := testenv.Node(t)
	home := e2eHome(t, rt, "")
	s.Command, s.Env["CWX_HOME"] = bin, home
	recipe.MCPServers["cwx"] = s
	cfg, _ := json.Marshal(recipe)
	dir := t.TempDir()
	file := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(file, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(dir, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte("from the project folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := tsClient(t, home, "--config", file, "--cwd", project, "--elicit", "allow_once", "--call", "read_file", "--args", `{"file_path":"notes.txt"}`)
	if o.ConnectError != "" || o.Call == nil || o.Call.IsError || !strings.Contains(o.Call.Text, "from the project folder") {
		t.Fatalf("read_file through the README's recipe: %+v", o)
	}
}
