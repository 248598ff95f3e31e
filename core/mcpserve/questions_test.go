package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// liveManager opens a real Manager on rt with the questions fixture installed, trusted and
// enabled; the Manager re-executes a freshly built cwx as its shim.
func liveManager(t *testing.T, bin string, rt testenv.Runtime) *core.Manager {
	t.Helper()
	home := t.TempDir()
	cfg := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n", rt.Name, rt.Name, rt.Path)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	provided, err := jshost.Provided()
	if err != nil {
		t.Fatal(err)
	}
	store, err := plugins.Open(plugins.Options{Home: home, Provided: provided.Provided, Refused: provided.Refused})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "questions"))
	res, err := store.Install(src)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := store.Review(res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(res.ID, rev.Token); err != nil {
		t.Fatal(err)
	}
	if err := store.Enable(res.ID); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := core.Open(ctx, core.Options{Home: home, ShimPath: bin, Approval: "auto", PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if err := m.Reconcile(ctx); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	return m
}

// scriptedClient answers every elicitation with the answer set last and records what it
// was shown.
type scriptedClient struct {
	mu     sync.Mutex
	answer *mcp.ElicitResult
	shown  []string
}

func (c *scriptedClient) elicit(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.shown = append(c.shown, r.Params.Message)
	return c.answer, nil
}

func (c *scriptedClient) set(a *mcp.ElicitResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer, c.shown = a, nil
}

// TestQuestionsByElicitation: a plugin's userQuestions.ask reaches the MCP client as a form
// elicitation, attributed; a choice, the person's own text and a decline reach the plugin
// as the typed answer (a decline skips); a command asks the same way through prompts/get;
// a client without elicitation leaves the call without an Asker, and the plugin gets
// NO_PROVIDER.
func TestQuestionsByElicitation(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			m := liveManager(t, bin, want.Get(t))
			client := &scriptedClient{}
			cs := connect(t, New(m, Options{}), &mcp.ClientOptions{ElicitationHandler: client.elicit})
			options := `{"question":{"question":"Which branch?","options":["main",{"label":"release","description":"the release branch"}],"allowText":true}}`
			accept := func(content map[string]any) *mcp.ElicitResult {
				return &mcp.ElicitResult{Action: "accept", Content: content}
			}
			for _, c := range []struct {
				name   string
				in     string
				answer *mcp.ElicitResult
				want   string // the answer the plugin saw, as JSON
				shown  string
			}{
				{"a choice", options, accept(map[string]any{"choice": "release"}), `{"answer":{"choice":"release","kind":"choice"}}`, "[2] release: the release branch"},
				{"own text", `{"question":"Anything else?"}`, accept(map[string]any{"text": "the hotfix branch"}), `{"answer":{"kind":"text","text":"the hotfix branch"}}`, "Anything else?"},
				{"declined", options, &mcp.ElicitResult{Action: "decline"}, `{"answer":{"kind":"skipped"}}`, "Which branch?"},
			} {
				t.Run(c.name, func(t *testing.T) {
					client.set(c.answer)
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_person", Arguments: json.RawMessage(c.in)})
					if err != nil || res.IsError {
						t.Fatalf("call: %v %q", err, text(orEmpty(res)))
					}
					if got, _ := json.Marshal(res.StructuredContent); string(got) != c.want {
						t.Fatalf("plugin saw %s, want %s", got, c.want)
					}
					if len(client.shown) != 1 || !strings.Contains(client.shown[0], "Plugin `fixture-questions` asks (while its tool `ask_person` runs)") || !strings.Contains(client.shown[0], c.shown) {
						t.Fatalf("the client was shown %q", client.shown)
					}
				})
			}
			client.set(accept(map[string]any{"choice": "release"}))
			p, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "ask", Arguments: map[string]string{"input": ""}})
			if err != nil || len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != `{"answer":{"kind":"choice","choice":"release"}}` {
				t.Fatalf("prompts/get: %v %+v", err, p)
			}
			if len(client.shown) != 1 || !strings.Contains(client.shown[0], "while its command `ask` runs") {
				t.Fatalf("the command's question showed %q", client.shown)
			}

			// A client on a protocol version before multi round-trip: the SDK elicits
			// directly during the call and hands the answer to the same retry.
			older := connectAt(t, New(m, Options{}), &mcp.ClientOptions{ElicitationHandler: client.elicit}, "2025-11-25")
			if v := older.InitializeResult().ProtocolVersion; v != "2025-11-25" {
				t.Fatalf("older client negotiated %s", v)
			}
			client.set(accept(map[string]any{"choice": "main"}))
			res, err := older.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_person", Arguments: json.RawMessage(options)})
			if b, _ := json.Marshal(orEmpty(res).StructuredContent); err != nil || string(b) != `{"answer":{"choice":"main","kind":"choice"}}` {
				t.Fatalf("older client: %v %s", err, b)
			}

			plain := connect(t, New(m, Options{}), nil)
			res, err = plain.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_person", Arguments: json.RawMessage(options)})
			if err != nil || res.IsError {
				t.Fatalf("no elicitation: %v %q", err, text(orEmpty(res)))
			}
			var got map[string]any
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &got); err != nil || got["error"] != "NO_PROVIDER" {
				t.Fatalf("no elicitation: the plugin saw %s", b)
			}
		})
	}
}

// TestQuestionStateBound: a retry resumes a parked call only with the state this server
// gave for it, once.
func TestQuestionStateBound(t *testing.T) {
	s := New(newFake(), Options{})
	other := New(newFake(), Options{})
	r := &run{cancel: func() {}}
	state := s.park(r)
	forged, _, _ := strings.Cut(state, ".")
	cases := []struct {
		name  string
		srv   *Server
		state string
		want  *run
	}{
		{"another server", other, state, nil},
		{"forged MAC", s, forged + "." + s.state(forged), nil},
		{"no MAC", s, forged, nil},
		{"its own state", s, state, r},
		{"a second retry", s, state, nil},
	}
	for _, c := range cases {
		if got := c.srv.take(c.state); got != c.want {
			t.Errorf("%s: took %p, want %p", c.name, got, c.want)
		}
	}
}

// TestParkedQuestionExpires: a call whose question is not answered within AnswerWithin is
// cancelled, and the late retry is told to make the call again.
func TestParkedQuestionExpires(t *testing.T) {
	f := newFake()
	f.set([]core.ToolInfo{tool("t", "p")}, nil)
	ended := make(chan error, 1)
	f.call = func(ctx context.Context, _ string, _ json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
		_, err := o.Asker.Ask(ctx, core.Question{PluginID: "p", Kind: "tool", Name: "t", Text: "Now?", AllowText: true})
		ended <- err
		return core.ToolResult{}, err
	}
	cs := connect(t, New(f, Options{AnswerWithin: time.Millisecond}), &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if err := <-ended; err == nil {
				t.Error("the unanswered question's Ask returned no error")
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"text": "late"}}, nil
		},
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	if err != nil || !res.IsError || text(res) != errQuestionGone.Error() {
		t.Fatalf("late retry: %v %q", err, text(orEmpty(res)))
	}
}
