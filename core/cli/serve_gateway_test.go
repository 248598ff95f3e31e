package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// gatewayEverything is the entry of the pinned @modelcontextprotocol/server-everything
// (testdata/mcp-servers, installed from its lockfile by `make mcp-servers`). A missing one
// fails the test under CI and skips it elsewhere.
func gatewayEverything(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "mcp-servers", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		if testenv.InCI() {
			t.Fatalf("server-everything is not installed: run `make mcp-servers` (%v)", err)
		}
		t.Skipf("server-everything is not installed: run `make mcp-servers` (%v)", err)
	}
	return p
}

// gatewayElicited is one elicitation testdata/mcp-client/gateway.mjs answered.
type gatewayElicited struct {
	Message  string   `json:"message"`
	Fields   []string `json:"fields"`
	Approval bool     `json:"approval"`
}

// gatewayOutput is what gateway.mjs prints.
type gatewayOutput struct {
	Tools []string `json:"tools"`
	Calls []struct {
		Name     string            `json:"name"`
		IsError  bool              `json:"isError"`
		Text     string            `json:"text"`
		Elicited []gatewayElicited `json:"elicited"`
	} `json:"calls"`
	Changed struct {
		Tools int `json:"tools"`
	} `json:"changed"`
	Prompts []struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Arguments   []string `json:"arguments"`
	} `json:"prompts"`
	Prompt []struct {
		Role string `json:"role"`
		Text string `json:"text"`
	} `json:"prompt"`
	Resources []string `json:"resources"`
	Templates []string `json:"templates"`
	Read      []struct {
		URI  string `json:"uri"`
		Text string `json:"text"`
	} `json:"read"`
	Capabilities struct {
		Completions *struct{} `json:"completions"`
		Resources   struct {
			Subscribe bool `json:"subscribe"`
		} `json:"resources"`
	} `json:"capabilities"`
	Completion []string `json:"completion"`
	Updated    []string `json:"updated"`
}

// everythingFormFields are the fields of server-everything's trigger-elicitation-request
// form, in the order the server writes them.
var everythingFormFields = []string{"name", "check", "firstLine", "email", "homepage", "birthdate", "integer", "number",
	"untitledSingleSelectEnum", "untitledMultipleSelectEnum", "titledSingleSelectEnum", "titledMultipleSelectEnum", "legacyTitledEnum"}

// TestServeGatewayTypeScriptClient: the official TypeScript SDK's client, through `cwx
// serve --mcp` with real processes, sees the tools of @modelcontextprotocol/server-everything
// (configured with approval = "ask" in config.toml, nothing cached: the first listing starts
// it), is asked for approval of a call by elicitation (it answers allow once) and gets the
// result; a call a Claude Code PreToolUse hook of the hooks_file denies is refused with the
// hook's reason, without being asked; the server's own form reaches the client whole, in the
// server's field order, after the approval (two rounds for a client on a protocol version
// before multi round-trip) and the answer reaches the server; the server's prompt and
// resources are served and relayed.
func TestServeGatewayTypeScriptClient(t *testing.T) {
	requireTSClient(t)
	entry := gatewayEverything(t)
	node := testenv.Node(t)
	bin := testenv.BuildCWX(t, "")
	home := t.TempDir()
	settings := filepath.Join(home, "settings.json")
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"sums are not for today"}}`
	hooks := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "mcp__everything__get-sum",
		"hooks":   []any{map[string]any{"type": "command", "command": "cat >/dev/null; echo '" + deny + "'"}},
	}}}}
	b, err := json.Marshal(hooks)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("hooks_file = %q\n\n[extension_host]\nruntime = %q\n%s = %q\n\n[mcp.servers.everything]\ncommand = %q\nargs = [%q, \"stdio\"]\napproval = \"ask\"\n",
		settings, node.Name, node.Name, node.Path, node.Path, entry)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}

	script, err := filepath.Abs(filepath.Join(tsClientDir, "gateway.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	form := `{"name":"Ada","check":true,"integer":7}`
	cmd := exec.Command(node.Path, script, "--bin", bin, "--wait-tool", "mcp_everything_trigger-elicitation-request",
		"--call", "mcp_everything_echo", "--args", `{"message":"through the gate"}`,
		"--call", "mcp_everything_get-sum", "--args", `{"a":1,"b":2}`,
		"--call", "mcp_everything_trigger-elicitation-request", "--args", `{}`, "--form", form,
		"--prompt", "mcp_everything_args-prompt", "--prompt-args", `{"city":"Paris"}`,
		"--resource", "demo://resource/dynamic/text/3",
		"--complete", "mcp_everything_completable-prompt", "--complete-arg", "name", "--complete-context", `{"department":"Engineering"}`,
		"--subscribe", "demo://resource/dynamic/text/3", "--subscribe-call", "mcp_everything_toggle-subscriber-updates")
	cmd.Env = append(os.Environ(), "CWX_HOME="+home)
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("gateway.mjs: %v\n%s", err, stderr.String())
	}
	var out gatewayOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("gateway.mjs output %q: %v\n%s", raw, err, stderr.String())
	}

	for _, want := range []string{"mcp_everything_echo", "mcp_everything_get-sum", "mcp_everything_trigger-elicitation-request"} {
		if !slices.Contains(out.Tools, want) {
			t.Errorf("tools %v lack %s", out.Tools, want)
		}
	}
	if out.Changed.Tools < 1 {
		t.Errorf("no notifications/tools/list_changed reached the client (the server's start changed the list)")
	}
	if len(out.Calls) != 3 {
		t.Fatalf("calls %+v\n%s", out.Calls, stderr.String())
	}
	echo, sum, formCall := out.Calls[0], out.Calls[1], out.Calls[2]
	if echo.IsError || echo.Text != "Echo: through the gate" {
		t.Errorf("echo: %+v", echo)
	}
	if len(echo.Elicited) != 1 || !echo.Elicited[0].Approval || !strings.Contains(echo.Elicited[0].Message, "Tool `echo` of MCP server `everything`") {
		t.Errorf("echo was not asked for approval by elicitation: %+v", echo.Elicited)
	}
	t.Logf("the hooked call answered %q", sum.Text)
	if !sum.IsError || !strings.Contains(sum.Text, "denied") || !strings.Contains(sum.Text, "sums are not for today") {
		t.Errorf("the hooked call: %+v", sum)
	}
	if len(sum.Elicited) != 0 {
		t.Errorf("the hooked call was asked about: %+v", sum.Elicited)
	}
	if formCall.IsError || !strings.Contains(formCall.Text, "- Name: Ada") || !strings.Contains(formCall.Text, "- Favorite Integer: 7") {
		t.Errorf("the form's answer did not reach the server: %+v", formCall)
	}
	if len(formCall.Elicited) != 2 || !formCall.Elicited[0].Approval || formCall.Elicited[1].Approval ||
		!strings.HasPrefix(formCall.Elicited[1].Message, "MCP server `everything` asks (while its tool `mcp_everything_trigger-elicitation-request` runs):") {
		t.Fatalf("the form call's elicitations: %+v", formCall.Elicited)
	}
	if got := formCall.Elicited[1].Fields; !slices.Equal(got, everythingFormFields) {
		t.Errorf("the form's fields %v, want the server's order %v", got, everythingFormFields)
	}

	if !slices.ContainsFunc(out.Prompts, func(p struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Arguments   []string `json:"arguments"`
	}) bool {
		return p.Name == "mcp_everything_args-prompt" && strings.HasPrefix(p.Description, "[mcp:everything] ") && slices.Equal(p.Arguments, []string{"city", "state"})
	}) {
		t.Errorf("prompts %+v lack mcp_everything_args-prompt", out.Prompts)
	}
	if len(out.Prompt) != 1 || out.Prompt[0].Role != "user" || !strings.Contains(out.Prompt[0].Text, "Paris") {
		t.Errorf("prompts/get: %+v", out.Prompt)
	}
	if !slices.Contains(out.Resources, "demo://resource/static/document/features.md") || !slices.Contains(out.Templates, "demo://resource/dynamic/text/{resourceId}") {
		t.Errorf("resources %v, templates %v", out.Resources, out.Templates)
	}
	if len(out.Read) != 1 || out.Read[0].URI != "demo://resource/dynamic/text/3" || !strings.HasPrefix(out.Read[0].Text, "Resource 3: ") {
		t.Errorf("resources/read: %+v", out.Read)
	}
	if out.Capabilities.Completions == nil || !out.Capabilities.Resources.Subscribe {
		t.Errorf("capabilities %+v: want completions and resources.subscribe", out.Capabilities)
	}
	// the server completes the argument from the one before it (context.arguments)
	if !slices.Equal(out.Completion, []string{"Alice", "Bob", "Charlie"}) {
		t.Errorf("completion/complete of completable-prompt's name in Engineering: %v", out.Completion)
	}
	if !slices.Contains(out.Updated, "demo://resource/dynamic/text/3") {
		t.Errorf("no notifications/resources/updated of the subscribed resource reached the client: %v\n%s", out.Updated, stderr.String())
	}
}
