package mcpserve

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/elicit"
)

// fakeGateway is MCP servers whose offers the test sets; it records the starts and the
// relayed requests.
type fakeGateway struct {
	mu      sync.Mutex
	offers  []core.MCPOffer
	starts  []bool // uncachedOnly of each StartIdle
	started []core.MCPOffer
	got     []string
	watch   map[int]func(server, uri string)
	watchN  int
}

func (g *fakeGateway) Offers(context.Context) []core.MCPOffer {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.offers)
}

func (g *fakeGateway) StartIdle(_ context.Context, uncachedOnly bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.starts = append(g.starts, uncachedOnly)
	g.offers = append(g.offers, g.started...)
	g.started = nil
}

func (g *fakeGateway) GetPrompt(_ context.Context, server, wire string, args map[string]string) (core.MCPPromptResult, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.got = append(g.got, "prompt "+server+" "+wire)
	if wire == "broken" {
		return core.MCPPromptResult{}, errors.New("the server broke")
	}
	return core.MCPPromptResult{Description: "d", Messages: []core.MCPPromptMessage{{Role: "user", Content: core.ContentBlock{Type: core.ContentText, Text: "hi " + args["who"]}}}}, nil
}

func (g *fakeGateway) ReadResource(_ context.Context, server, uri string) ([]core.ContentBlock, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.got = append(g.got, "read "+server+" "+uri)
	return []core.ContentBlock{{Type: core.ContentResource, URI: uri, MimeType: "text/plain", Text: "text of " + uri}}, nil
}

func (g *fakeGateway) set(offers ...core.MCPOffer) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.offers = offers
}

func prompt(wire string, args ...string) core.MCPPrompt {
	p := core.MCPPrompt{Name: wire, Description: "about " + wire, Served: "mcp_" + "s_" + wire}
	for _, a := range args {
		p.Arguments = append(p.Arguments, a)
		p.Args = append(p.Args, core.MCPPromptArgument{Name: a, Description: "the " + a, Required: true})
	}
	return p
}

// TestGatewayPromptsAndResources: the running servers' prompts are served as
// mcp_<server>_<prompt> beside the commands (a name a command holds, or two servers'
// prompts fold to, is served for none), prompts/get and resources/read are relayed to the
// server that listed the name, a URI two servers offer is served for neither, and a change
// of what they offer reaches the client as list_changed.
func TestGatewayPromptsAndResources(t *testing.T) {
	f := newFake()
	f.set(nil, []core.CommandInfo{{Name: "mcp_s_taken", PluginID: "p", Origin: "extension:p", Description: "A command."}})
	g := &fakeGateway{}
	other := prompt("greet")
	other.Served = "mcp_S_greet" // folds to the same key as s's greet
	g.set(core.MCPOffer{Server: "s", Prompts: []core.MCPPrompt{prompt("greet", "who"), prompt("taken"), prompt("broken")},
		Resources: []core.MCPResource{{URI: "test://readme", Name: "readme", Description: "A resource."}, {URI: "test://both", Name: "both"}, {URI: "no scheme", Name: "bad"}},
		Templates: []core.MCPResourceTemplate{{URITemplate: "test://items/{id}", Name: "items"}}},
		core.MCPOffer{Server: "u", Prompts: []core.MCPPrompt{prompt("solo")}, Resources: []core.MCPResource{{URI: "test://both", Name: "both"}}})
	g.offers[1].Prompts[0].Served = "mcp_u_solo"
	s := New(f, Options{})
	s.gw = g
	changed := make(chan string, 16)
	cs := connect(t, s, &mcp.ClientOptions{
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { changed <- "prompts" },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- "resources" },
	})
	ctx := context.Background()
	names := func() []string {
		t.Helper()
		res, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range res.Prompts {
			out = append(out, p.Name)
		}
		slices.Sort(out)
		return out
	}
	if got, want := names(), []string{"mcp_s_broken", "mcp_s_greet", "mcp_s_taken", "mcp_u_solo"}; !slices.Equal(got, want) {
		t.Fatalf("prompts %v, want %v", got, want)
	}
	list, _ := cs.ListPrompts(ctx, nil)
	for _, p := range list.Prompts {
		if p.Name == "mcp_s_greet" && (p.Description != "[mcp:s] about greet" || len(p.Arguments) != 1 || p.Arguments[0].Name != "who" || !p.Arguments[0].Required) {
			t.Errorf("mcp_s_greet listed as %+v", p)
		}
		if p.Name == "mcp_s_taken" && p.Description != "[extension:p] A command." {
			t.Errorf("the command lost its name to the server's prompt: %+v", p)
		}
	}
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcp_s_greet", Arguments: map[string]string{"who": "Ada"}})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.(*mcp.TextContent).Text != "hi Ada" {
		t.Fatalf("prompts/get: %v %+v", err, res)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcp_s_broken"}); err == nil || !strings.Contains(err.Error(), "the server broke") {
		t.Errorf("a failing prompts/get: %v", err)
	}

	rs, err := cs.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "test://readme" || rs.Resources[0].Description != "[mcp:s] A resource." {
		t.Fatalf("resources/list: %v %+v", err, rs)
	}
	ts, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(ts.ResourceTemplates) != 1 || ts.ResourceTemplates[0].URITemplate != "test://items/{id}" {
		t.Fatalf("resources/templates/list: %v %+v", err, ts)
	}
	for _, uri := range []string{"test://readme", "test://items/7"} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "text of "+uri {
			t.Errorf("resources/read %s: %v %+v", uri, err, rr)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://both"}); err == nil {
		t.Error("a URI two servers offer was read")
	}
	g.mu.Lock()
	got := slices.Clone(g.got)
	g.mu.Unlock()
	if want := []string{"prompt s greet", "prompt s broken", "read s test://readme", "read s test://items/7"}; !slices.Equal(got, want) {
		t.Errorf("relayed %v, want %v", got, want)
	}

	for len(changed) > 0 {
		<-changed
	}
	g.set(core.MCPOffer{Server: "s", Prompts: []core.MCPPrompt{prompt("greet", "who")}})
	s.Sync()
	seen := map[string]bool{}
	for limit := time.After(10 * time.Second); !seen["prompts"] || !seen["resources"]; {
		select {
		case c := <-changed:
			seen[c] = true
		case <-limit:
			t.Fatalf("list_changed seen: %v", seen)
		}
	}
	if got, want := names(), []string{"mcp_s_greet", "mcp_s_taken"}; !slices.Equal(got, want) {
		t.Errorf("after the change: prompts %v, want %v", got, want)
	}
	if rs, err := cs.ListResources(ctx, nil); err != nil || len(rs.Resources) != 0 {
		t.Errorf("after the change: resources %v %+v", err, rs)
	}

	// a command that comes to hold a served prompt's name takes it, and keeps it
	f.set(nil, []core.CommandInfo{{Name: "mcp_s_taken", PluginID: "p", Origin: "extension:p", Description: "A command."},
		{Name: "mcp_s_greet", PluginID: "p", Origin: "extension:p", Description: "Another command."}})
	s.Sync()
	list, err = cs.ListPrompts(ctx, nil)
	if err != nil || len(list.Prompts) != 2 || !slices.ContainsFunc(list.Prompts, func(p *mcp.Prompt) bool {
		return p.Name == "mcp_s_greet" && p.Description == "[extension:p] Another command."
	}) {
		t.Errorf("after a command took the name: %v %+v", err, list)
	}
}

// TestGatewayStartsWhatAListingNeeds: the first tools/list starts the servers the catalog
// knows no tools of, the first prompts/list every server not started, each once, and the
// listing answers with what they offer.
func TestGatewayStartsWhatAListingNeeds(t *testing.T) {
	g := &fakeGateway{started: []core.MCPOffer{{Server: "s", Prompts: []core.MCPPrompt{prompt("greet")}}}}
	s := New(newFake(), Options{})
	s.gw = g
	cs := connect(t, s, nil)
	ctx := context.Background()
	for range 2 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	res, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(res.Prompts) != 1 || res.Prompts[0].Name != "mcp_s_greet" {
		t.Fatalf("prompts/list after the start: %v %+v", err, res)
	}
	if _, err := cs.ListResources(ctx, nil); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !slices.Equal(g.starts, []bool{true, false}) {
		t.Errorf("starts (uncachedOnly) %v, want [true false]", g.starts)
	}
}

// formSchema is a requested schema whose fields are not in sorted order.
const formSchema = `{"type":"object","properties":{"name":{"type":"string","title":"Name"},"age":{"type":"integer","minimum":1},"colour":{"type":"string","enum":["red","blue"]}},"required":["name"]}`

// rawRequests is a transport that keeps the raw elicitation/create requests its client
// reads.
type rawRequests struct {
	mcp.Transport
	mu  sync.Mutex
	raw []json.RawMessage
}

func (r *rawRequests) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	return rawConn{c, r}, err
}

type rawConn struct {
	mcp.Connection
	r *rawRequests
}

// Read keeps the params of an elicitation/create request (a client on an older protocol
// version) and of each elicitation a result's inputRequests carry (multi round-trip).
func (c rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	var params []json.RawMessage
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "elicitation/create" {
			params = append(params, m.Params)
		}
	case *jsonrpc.Response:
		var res struct {
			InputRequests map[string]struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			} `json:"inputRequests"`
		}
		if json.Unmarshal(m.Result, &res) == nil {
			for _, ir := range res.InputRequests {
				if ir.Method == "elicitation/create" {
					params = append(params, ir.Params)
				}
			}
		}
	}
	c.r.mu.Lock()
	c.r.raw = append(c.r.raw, params...)
	c.r.mu.Unlock()
	return msg, err
}

// formManager is a fake whose tool mcp_s_ask is approved by the card and then elicits
// formSchema through core/elicit's Answerer over the call's Asker, as an MCP server's
// elicitation during a call is answered; its result is the answer.
func formManager() *fakeManager {
	f := newFake()
	f.set([]core.ToolInfo{tool("mcp_s_ask", "mcp:s")}, nil)
	f.call = func(ctx context.Context, name string, in json.RawMessage, o core.CallOptions) (core.ToolResult, error) {
		if err := approve(ctx, name, in, o); err != nil {
			return core.ToolResult{}, err
		}
		got, err := elicit.Answerer(hclog.NewNullLogger(), "s", name, o.Asker)(ctx, "Tell me about you.", json.RawMessage(formSchema))
		if err != nil {
			return core.ToolResult{}, err
		}
		b, _ := json.Marshal(got.Content)
		return core.ToolResult{Content: []core.ContentBlock{{Type: "text", Text: got.Action + " " + string(b)}}}, nil
	}
	return f
}

// requestedSchemas are the requested schemas of the elicitations raw saw, approval cards
// left out.
func requestedSchemas(t *testing.T, raw *rawRequests) []string {
	t.Helper()
	raw.mu.Lock()
	defer raw.mu.Unlock()
	var out []string
	for _, p := range raw.raw {
		var params struct {
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		}
		if err := json.Unmarshal(p, &params); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(params.RequestedSchema), `"decision"`) {
			out = append(out, string(params.RequestedSchema))
		}
	}
	return out
}

// connectRaw is connectAt through a rawRequests transport.
func connectRaw(t *testing.T, srv *Server, opts *mcp.ClientOptions, version string) (*mcp.ClientSession, *rawRequests) {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	raw := &rawRequests{Transport: ct}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, raw, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		cancel()
		<-done
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); cancel(); <-done })
	return cs, raw
}

// TestServerFormRelayedWhole: an MCP server's elicitation during a call (core/elicit's
// Answerer over the call's Asker) reaches a client that declared elicitation as ONE form
// elicitation, attributed to the server, with the requested schema as the server wrote it
// (its fields in the server's order); an answer the schema refuses (which only a client's
// own retry can bring: the SDK's elicitation checks its answers) is asked again with the
// reason, and a valid one goes back to the server.
func TestServerFormRelayedWhole(t *testing.T) {
	cs, raw := connectRaw(t, New(formManager(), Options{}), &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}, "")
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "mcp_s_ask", Arguments: map[string]any{}}
	answers := []*mcp.ElicitResult{
		{Action: "accept", Content: map[string]any{"decision": answerOnce}},
		{Action: "accept", Content: map[string]any{"name": "Ada", "age": 0}},
		{Action: "accept", Content: map[string]any{"name": "Ada", "age": 36, "pet": "cat"}},
		{Action: "accept", Content: map[string]any{"name": "Ada", "age": 36, "colour": "blue"}},
	}
	var shown []string
	for round := 0; ; round++ {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !res.NeedsInput() {
			if res.IsError || text(res) != `accept {"age":36,"colour":"blue","name":"Ada"}` {
				t.Fatalf("the call answered %q", text(res))
			}
			break
		}
		if round == len(answers) {
			t.Fatalf("asked more than %d times: %q", len(answers), shown)
		}
		var id string
		var ask *mcp.ElicitParams
		for k, v := range res.InputRequests {
			id, ask = k, v.(*mcp.ElicitParams)
		}
		if len(res.InputRequests) != 1 {
			t.Fatalf("round %d: %d input requests", round, len(res.InputRequests))
		}
		shown = append(shown, ask.Message)
		params = &mcp.CallToolParams{Name: "mcp_s_ask", Arguments: map[string]any{},
			InputResponses: mcp.InputResponseMap{id: answers[round]}, RequestState: res.RequestState}
	}
	if len(shown) != 4 || !strings.HasPrefix(shown[1], "MCP server `s` asks (while its tool `mcp_s_ask` runs):\nTell me about you.") ||
		!strings.Contains(shown[2], "Not accepted: ") || !strings.Contains(shown[2], "/age") ||
		!strings.Contains(shown[3], `Not accepted: "pet" is not a field of the form`) {
		t.Fatalf("shown %q", shown)
	}
	forms := requestedSchemas(t, raw)
	if len(forms) != 3 {
		t.Fatalf("%d forms on the wire, want 3 (one per ask): %q", len(forms), forms)
	}
	for _, f := range forms {
		if f != formSchema {
			t.Errorf("the form reached the client as %s, want the server's %s", f, formSchema)
		}
	}
}

// TestServerFormAfterApprovalOlderClient: a client on a protocol version before multi
// round-trip is asked the approval and then the server's form, each by elicitation/create
// (two rounds, the SDK answers only the first by itself), the form whole and as the server
// wrote it, and gets the call's result.
func TestServerFormAfterApprovalOlderClient(t *testing.T) {
	var mu sync.Mutex
	var shown []string
	cs, raw := connectRaw(t, New(formManager(), Options{}), &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		shown = append(shown, r.Params.Message)
		if strings.Contains(r.Params.Message, "Extension tool") {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerOnce}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "colour": "red"}}, nil
	}}, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mcp_s_ask", Arguments: map[string]any{}})
	if err != nil || res.IsError || text(res) != `accept {"colour":"red","name":"Ada"}` {
		t.Fatalf("call: %v %q", err, text(orEmpty(res)))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != 2 || !strings.HasPrefix(shown[1], "MCP server `s` asks") {
		t.Fatalf("shown %q", shown)
	}
	if forms := requestedSchemas(t, raw); len(forms) != 1 || forms[0] != formSchema {
		t.Errorf("forms on the wire %q, want the server's %s once", forms, formSchema)
	}
}

func (g *fakeGateway) Complete(_ context.Context, server string, req core.MCPCompleteRequest) (core.MCPCompletion, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.got = append(g.got, fmt.Sprintf("complete %s %s%s %s=%s %v", server, req.Prompt, req.URI, req.Argument, req.Value, req.Context))
	return core.MCPCompletion{Values: []string{req.Value + "da", req.Value + "l\x1b[31m"}, Total: 7, HasMore: true}, nil
}

func (g *fakeGateway) Subscribe(_ context.Context, server, uri string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.got = append(g.got, "subscribe "+server+" "+uri)
	if uri == "test://items/none" {
		return errors.New("the server refused it")
	}
	return nil
}

func (g *fakeGateway) Unsubscribe(_ context.Context, server, uri string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.got = append(g.got, "unsubscribe "+server+" "+uri)
	return nil
}

func (g *fakeGateway) WatchResources(fn func(server, uri string)) (stop func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.watch == nil {
		g.watch = map[int]func(server, uri string){}
	}
	id := g.watchN
	g.watchN++
	g.watch[id] = fn
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.watch, id)
	}
}

// updated sends a notifications/resources/updated as server would.
func (g *fakeGateway) updated(server, uri string) {
	g.mu.Lock()
	fns := slices.Collect(maps.Values(g.watch))
	g.mu.Unlock()
	for _, fn := range fns {
		fn(server, uri)
	}
}

// relayed takes what the gateway relayed so far.
func (g *fakeGateway) relayed() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.got
	g.got = nil
	return out
}

// TestGatewayComplete: completion/complete of a served prompt or resource template goes to
// its server (values stripped of terminal escapes); a command's prompt, or a template no
// server serves, completes to nothing.
func TestGatewayComplete(t *testing.T) {
	f := newFake()
	f.set(nil, []core.CommandInfo{{Name: "mcp_s_taken", PluginID: "p", Origin: "extension:p", Description: "A command."}})
	g := &fakeGateway{}
	g.set(core.MCPOffer{Server: "s", Prompts: []core.MCPPrompt{prompt("greet", "who")},
		Resources: []core.MCPResource{{URI: "test://readme", Name: "readme"}},
		Templates: []core.MCPResourceTemplate{{URITemplate: "test://items/{id}", Name: "items"}}})
	s := New(f, Options{})
	s.gw = g
	a := connect(t, s, nil)
	ctx := context.Background()
	if caps := a.InitializeResult().Capabilities; caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("capabilities %+v: want completions and resources.subscribe", caps)
	}

	res, err := a.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "mcp_s_greet"},
		Argument: mcp.CompleteParamsArgument{Name: "who", Value: "A"}, Context: &mcp.CompleteContext{Arguments: map[string]string{"x": "1"}}})
	if err != nil || !slices.Equal(res.Completion.Values, []string{"Ada", "Al"}) || res.Completion.Total != 7 || !res.Completion.HasMore {
		t.Fatalf("complete a served prompt: %v %+v", err, res)
	}
	res, err = a.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "test://items/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "4"}})
	if err != nil || len(res.Completion.Values) != 2 {
		t.Fatalf("complete a served template: %v %+v", err, res)
	}
	for _, ref := range []*mcp.CompleteReference{{Type: "ref/prompt", Name: "mcp_s_taken"}, {Type: "ref/resource", URI: "test://nothing/{x}"}} {
		res, err := a.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "input", Value: "x"}})
		if err != nil || len(res.Completion.Values) != 0 {
			t.Errorf("complete %+v: %v %+v; want no values", ref, err, res)
		}
	}
	if got, want := g.relayed(), []string{"complete s greet who=A map[x:1]", "complete s test://items/{id} id=4 map[]"}; !slices.Equal(got, want) {
		t.Errorf("relayed %q, want %q", got, want)
	}

}

// TestGatewaySubscribe: resources/subscribe of a served resource (or a URI a template
// matches) reaches its server once for any number of sessions, its updates reach exactly
// the sessions subscribed, an update a server sends for a URI subscribed at another server
// is dropped, and the last session's unsubscribe (or its end) unsubscribes at the server;
// on the protocol before subscriptions/listen (whose Subscribe answers) and on the latest
// (whose Subscribe opens a stream and answers nothing).
func TestGatewaySubscribe(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+cmp.Or(version, "latest"), func(t *testing.T) {
			f := newFake()
			g := &fakeGateway{}
			g.set(core.MCPOffer{Server: "s", Resources: []core.MCPResource{{URI: "test://readme", Name: "readme"}},
				Templates: []core.MCPResourceTemplate{{URITemplate: "test://items/{id}", Name: "items"}}},
				core.MCPOffer{Server: "u", Resources: []core.MCPResource{{URI: "test://u", Name: "u"}}})
			s := New(f, Options{})
			s.gw = g
			updates := make(chan string, 16)
			opts := func(who string) *mcp.ClientOptions {
				return &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
					updates <- who + " " + req.Params.URI
				}}
			}
			ctx := context.Background()
			stop := s.Watch(ctx) // one Watch, many sessions: as over HTTP
			t.Cleanup(stop)
			a, b := sessionOf(t, s, opts("a"), version), sessionOf(t, s, opts("b"), version)
			var relayed []string
			waitRelayed := func(what string, want ...string) {
				t.Helper()
				for limit := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
					relayed = append(relayed, g.relayed()...)
					if len(relayed) >= len(want) {
						break
					}
					if time.Now().After(limit) {
						break
					}
				}
				slices.Sort(relayed)
				slices.Sort(want)
				if !slices.Equal(relayed, want) {
					t.Fatalf("%s: relayed %q, want %q", what, relayed, want)
				}
				relayed = nil
			}
			subscribers := func(uri string) int {
				s.subMu.Lock()
				defer s.subMu.Unlock()
				if sub := s.subs[uri]; sub != nil {
					return len(sub.sessions)
				}
				return 0
			}
			for _, cs := range []*mcp.ClientSession{a, b} {
				if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/7"}); err != nil {
					t.Fatalf("subscribe: %v", err)
				}
			}
			if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://u"}); err != nil {
				t.Fatal(err)
			}
			waitRelayed("two sessions' subscriptions", "subscribe s test://items/7", "subscribe u test://u")
			for limit := time.Now().Add(10 * time.Second); subscribers("test://items/7") != 2 || subscribers("test://u") != 1; time.Sleep(2 * time.Millisecond) {
				if time.Now().After(limit) {
					t.Fatalf("subscribers %d and %d, want 2 and 1", subscribers("test://items/7"), subscribers("test://u"))
				}
			}
			if version != "" {
				if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://elsewhere"}); err == nil || !strings.Contains(err.Error(), `no MCP server serves "test://elsewhere"`) {
					t.Errorf("subscribe to a URI no server serves: %v", err)
				}
				if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/none"}); err == nil || !strings.Contains(err.Error(), "the server refused it") {
					t.Errorf("subscribe the server refuses: %v", err)
				}
				waitRelayed("a refused subscription", "subscribe s test://items/none")
			}

			g.updated("u", "test://items/7") // u speaking for s's resource: dropped
			g.updated("s", "test://readme")  // subscribed by nobody
			select {
			case u := <-updates:
				t.Fatalf("an update no session subscribed to at its server arrived: %s", u)
			case <-time.After(200 * time.Millisecond):
			}
			g.updated("s", "test://items/7")
			g.updated("u", "test://u")
			got := map[string]bool{}
			for limit := time.After(10 * time.Second); len(got) < 3; {
				select {
				case u := <-updates:
					got[u] = true
				case <-limit:
					t.Fatalf("updates seen: %v", got)
				}
			}
			if want := map[string]bool{"a test://items/7": true, "b test://items/7": true, "a test://u": true}; !maps.Equal(got, want) {
				t.Errorf("updates %v, want %v", got, want)
			}
			select {
			case u := <-updates:
				t.Errorf("one more update: %s", u)
			case <-time.After(100 * time.Millisecond):
			}

			if err := a.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://items/7"}); err != nil {
				t.Fatal(err)
			}
			for limit := time.Now().Add(10 * time.Second); subscribers("test://items/7") != 1; time.Sleep(2 * time.Millisecond) {
				if time.Now().After(limit) {
					t.Fatalf("subscribers after one unsubscribe: %d, want 1", subscribers("test://items/7"))
				}
			}
			waitRelayed("one session's unsubscribe while another holds it")
			if err := b.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://items/7"}); err != nil {
				t.Fatal(err)
			}
			waitRelayed("the last unsubscribe", "unsubscribe s test://items/7")

			// a session that ends without unsubscribing: its subscription is dropped at its
			// stream's end (latest) or at the next subscription (before)
			_ = a.Close()
			for limit := time.Now().Add(10 * time.Second); sessions(s) != 1; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(limit) {
					t.Fatalf("%d sessions open after one of two closed", sessions(s))
				}
			}
			if err := b.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://readme"}); err != nil {
				t.Fatal(err)
			}
			waitRelayed("after a session ended", "unsubscribe u test://u", "subscribe s test://readme")
		})
	}
}

// sessionOf connects a client on protocol version v ("" the latest) to s as an HTTP client
// would: a session of s's SDK server, without a Run of its own (the caller watches).
func sessionOf(t *testing.T, s *Server, opts *mcp.ClientOptions, v string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		_ = ss.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	return cs
}

func sessions(s *Server) int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// TestGatewaySubscriptionsBounded: a template matches any number of URIs, so the
// subscriptions kept at once are bounded; past the bound a subscription is refused saying
// what to do, and one more is taken after an unsubscribe.
func TestGatewaySubscriptionsBounded(t *testing.T) {
	g := &fakeGateway{}
	g.set(core.MCPOffer{Server: "s", Templates: []core.MCPResourceTemplate{{URITemplate: "test://items/{id}", Name: "items"}}})
	s := New(newFake(), Options{})
	s.gw = g
	cs := connectAt(t, s, nil, "2025-11-25")
	ctx := context.Background()
	for i := range maxSubscriptions {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("test://items/%d", i)}); err != nil {
			t.Fatalf("subscription %d: %v", i+1, err)
		}
	}
	err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/more"})
	if err == nil || !strings.Contains(err.Error(), "the most cwx keeps; unsubscribe from one first") {
		t.Fatalf("subscription %d: %v; want refused at the bound", maxSubscriptions+1, err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/0"}); err != nil {
		t.Errorf("a subscription already held, again at the bound: %v", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://items/0"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://items/more"}); err != nil {
		t.Errorf("after an unsubscribe: %v", err)
	}
}
