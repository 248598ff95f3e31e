package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

const closure = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"

func TestKey(t *testing.T) {
	k1, err := Key("hello", closure, "greet", []byte(`{"name": "Ada", "loud": true}`))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(`{"loud":true,"name":"Ada"}`))
	want := "ext:hello@" + closure + ":greet:" + hex.EncodeToString(sum[:])
	if k1 != want {
		t.Fatalf("key %s\nwant %s", k1, want)
	}
	same, _ := Key("hello", closure, "greet", []byte(`{"loud":true,"name":"Ada"}`))
	if same != k1 {
		t.Fatal("the same input in another layout changed the key")
	}
	for name, k := range map[string][]any{
		"input":   {"hello", closure, "greet", `{"name":"Bob","loud":true}`},
		"closure": {"hello", strings.Repeat("1", 64), "greet", `{"name":"Ada","loud":true}`},
		"plugin":  {"other", closure, "greet", `{"name":"Ada","loud":true}`},
		"tool":    {"hello", closure, "wave", `{"name":"Ada","loud":true}`},
	} {
		got, err := Key(k[0].(string), k[1].(string), k[2].(string), []byte(k[3].(string)))
		if err != nil || got == k1 {
			t.Errorf("another %s kept the key (%v)", name, err)
		}
	}
	if _, err := Key("p", closure, "t", []byte(`{"a":1,"a":2}`)); !errors.Is(err, ErrNotCanonicalizable) {
		t.Fatalf("duplicate keys: %v", err)
	}
}

func TestResolvePosture(t *testing.T) {
	cases := []struct {
		flag, config string
		want         Posture
		err          string
	}{
		{"", "", Ask, ""},
		{"", "auto", Auto, ""},
		{"", "deny", Deny, ""},
		{"deny", "auto", Deny, ""},
		{"ask", "auto", Ask, ""},
		{"auto", "", Auto, ""},
		{"yes", "auto", "", "--approve"},
		{"", "always", "", "[extension_host] approval"},
	}
	for _, tc := range cases {
		got, err := ResolvePosture(tc.flag, tc.config)
		if tc.err != "" {
			if !errors.Is(err, ErrBadPosture) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("(%q,%q): err = %v", tc.flag, tc.config, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("(%q,%q) = %s, %v; want %s", tc.flag, tc.config, got, err, tc.want)
		}
	}
}

// recorder is an Approver that answers from a script and records the cards.
type recorder struct {
	answers []Decision
	err     error
	cards   []Card
}

func (r *recorder) Approve(_ context.Context, c Card) (Decision, error) {
	r.cards = append(r.cards, c)
	if r.err != nil {
		return DenyDecision, r.err
	}
	d := r.answers[0]
	r.answers = r.answers[1:]
	return d, nil
}

func req(input string) Request {
	return Request{PluginID: "hello", ClosureSHA256: closure, Tool: "greet", Input: []byte(input), Requirement: Required}
}

func TestSessionGrantRemembersExactlyTheKey(t *testing.T) {
	rec := &recorder{answers: []Decision{AllowSession, AllowOnce, AllowOnce, AllowOnce}}
	g := New(Ask, rec)
	ctx := context.Background()
	if src, err := g.Check(ctx, req(`{"name":"Ada"}`), nil); err != nil || src != ByApprover {
		t.Fatalf("first call: %s %v", src, err)
	}
	if src, err := g.Check(ctx, req(` { "name" : "Ada" } `), nil); err != nil || src != BySessionGrant {
		t.Fatalf("same input again: %s %v", src, err)
	}
	if len(rec.cards) != 1 {
		t.Fatalf("asked %d times", len(rec.cards))
	}
	other := req(`{"name":"Bob"}`)
	newBuild := req(`{"name":"Ada"}`)
	newBuild.ClosureSHA256 = strings.Repeat("2", 64)
	otherPlugin := req(`{"name":"Ada"}`)
	otherPlugin.PluginID = "imposter"
	for _, r := range []Request{other, newBuild, otherPlugin} {
		if src, err := g.Check(ctx, r, nil); err != nil || src != ByApprover {
			t.Fatalf("%+v: %s %v", r, src, err)
		}
	}
	if len(rec.cards) != 4 {
		t.Fatalf("asked %d times, want 4", len(rec.cards))
	}
	if !g.Granted(rec.cards[0].Key) || g.Granted(rec.cards[1].Key) {
		t.Fatal("allow once was remembered or allow for session was not")
	}
}

func TestPostures(t *testing.T) {
	ctx := context.Background()
	forced := req(`{}`)
	forced.Requirement = Forced
	cases := []struct {
		name    string
		posture Posture
		r       Request
		answers []Decision
		src     Source
		denied  bool
		asked   int
	}{
		{"ask asks", Ask, req(`{}`), []Decision{AllowOnce}, ByApprover, false, 1},
		{"ask deny", Ask, req(`{}`), []Decision{DenyDecision}, "", true, 1},
		{"auto approves required", Auto, req(`{}`), nil, ByPosture, false, 0},
		{"auto still asks forced", Auto, forced, []Decision{AllowOnce}, ByApprover, false, 1},
		{"auto forced denied", Auto, forced, []Decision{DenyDecision}, "", true, 1},
		{"deny refuses without asking", Deny, req(`{}`), nil, "", true, 0},
		{"deny refuses forced", Deny, forced, nil, "", true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{answers: tc.answers}
			src, err := New(tc.posture, rec).Check(ctx, tc.r, nil)
			if errors.Is(err, ErrDenied) != tc.denied || src != tc.src || len(rec.cards) != tc.asked {
				t.Fatalf("src %q err %v asked %d", src, err, len(rec.cards))
			}
		})
	}
}

func TestForcedIgnoresAndSkipsSessionGrants(t *testing.T) {
	rec := &recorder{answers: []Decision{AllowSession, AllowSession, AllowOnce}}
	g := New(Ask, rec)
	forced := req(`{}`)
	forced.Requirement = Forced
	ctx := context.Background()
	if _, err := g.Check(ctx, forced, nil); err != nil {
		t.Fatal(err)
	}
	if g.Granted(rec.cards[0].Key) {
		t.Fatal("a forced prompt's allow-for-session was remembered")
	}
	if _, err := g.Check(ctx, req(`{}`), nil); err != nil { // grants the key
		t.Fatal(err)
	}
	if _, err := g.Check(ctx, forced, nil); err != nil || len(rec.cards) != 3 {
		t.Fatalf("a forced prompt used the session grant: asked %d, %v", len(rec.cards), err)
	}
	if !rec.cards[2].Forced {
		t.Fatal("card not marked forced")
	}
}

func TestFailsClosed(t *testing.T) {
	ctx := context.Background()
	if _, err := New(Ask, nil).Check(ctx, req(`{}`), nil); !errors.Is(err, ErrDenied) || !errors.Is(err, ErrNoApprover) {
		t.Fatalf("no approver: %v", err)
	}
	broken := &recorder{err: errors.New("dialog crashed")}
	if _, err := New(Ask, nil).Check(ctx, req(`{}`), broken); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "dialog crashed") {
		t.Fatalf("approver error: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	ctxApprover := ApproverFunc(func(ctx context.Context, _ Card) (Decision, error) { return DenyDecision, ctx.Err() })
	if _, err := New(Ask, nil).Check(cctx, req(`{}`), ctxApprover); !errors.Is(err, context.Canceled) || errors.Is(err, ErrDenied) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := New(Auto, nil).Check(ctx, req(`{"a":1,"a":1}`), nil); !errors.Is(err, ErrNotCanonicalizable) {
		t.Fatalf("bad input: %v", err)
	}
}

func TestPerCallApproverOverridesDefault(t *testing.T) {
	def := &recorder{answers: []Decision{DenyDecision}}
	call := &recorder{answers: []Decision{AllowOnce}}
	if _, err := New(Ask, def).Check(context.Background(), req(`{}`), call); err != nil || len(def.cards) != 0 || len(call.cards) != 1 {
		t.Fatalf("err %v default asked %d call asked %d", err, len(def.cards), len(call.cards))
	}
}

func TestCardText(t *testing.T) {
	cases := []struct {
		others int
		want   string
		notes  []string
	}{
		{0, "Extension tool `greet` from plugin `hello` (runs JavaScript with your permissions)\ninput: {\"a\":[1,2],\"b\":\"x\"}\n", nil},
		{1, "Extension tool `greet` from plugin `hello` (runs JavaScript with your permissions)\ninput: {\"a\":[1,2],\"b\":\"x\"}\nruns alongside 1 other plugin in one process\nhook of plugin `guard` notes: n\n",
			[]string{"hook of plugin `guard` notes: n"}},
		{1, "Extension tool `greet` from plugin `hello` (runs JavaScript with your permissions)\ninput: {\"a\":[1,2],\"b\":\"x\"}\nruns alongside 1 other plugin in one process\n", nil},
		{3, "Extension tool `greet` from plugin `hello` (runs JavaScript with your permissions)\ninput: {\"a\":[1,2],\"b\":\"x\"}\nruns alongside 3 other plugins in one process\n", nil},
	}
	for _, tc := range cases {
		rec := &recorder{answers: []Decision{AllowOnce}}
		r := req(`{"b":"x","a":[1,2.0]}`)
		r.OtherPlugins = tc.others
		r.Notes = tc.notes
		if _, err := New(Ask, rec).Check(context.Background(), r, nil); err != nil {
			t.Fatal(err)
		}
		c := rec.cards[0]
		if c.Text() != tc.want {
			t.Errorf("others=%d:\n%q\nwant\n%q", tc.others, c.Text(), tc.want)
		}
		if k, _ := Key("hello", closure, "greet", r.Input); c.Key != k {
			t.Errorf("card key %s, want %s", c.Key, k)
		}
	}
	// the core's line on the plugin's containment replaces the default in the title
	contained := req(`{}`)
	contained.Containment = "sandboxed: no network, only its own files; in a host of its own"
	if c := NewCard(contained, "k", []byte(`{}`)); c.Title != "Extension tool `greet` from plugin `hello` (sandboxed: no network, only its own files; in a host of its own)" {
		t.Errorf("title %q", c.Title)
	}
	long := `{"s":"` + strings.Repeat("é", MaxCardInput) + `"}`
	c := NewCard(req(long), "k", []byte(long))
	if len(c.Input) > MaxCardInput+64 || !strings.HasSuffix(c.Input, "bytes in all)") || !strings.HasPrefix(c.Input, `{"s":"éé`) {
		t.Fatalf("long input shown as %d bytes: ...%s", len(c.Input), c.Input[len(c.Input)-40:])
	}
}

// TestToolGrant: "allow this tool for the session" covers another input to the same tool of
// the same plugin build from the same origin, and nothing else.
func TestToolGrant(t *testing.T) {
	ctx := context.Background()
	grant := req(`{"name":"Ada"}`)
	otherTool := req(`{"name":"Ada"}`)
	otherTool.Tool = "wave"
	newBuild := req(`{"name":"Ada"}`)
	newBuild.ClosureSHA256 = strings.Repeat("2", 64)
	otherPlugin := req(`{"name":"Ada"}`)
	otherPlugin.PluginID = "imposter"
	nested := req(`{"name":"Ada"}`)
	nested.Caller = &Caller{PluginID: "hello", ClosureSHA256: closure, Tool: "greet"}
	native := req(`{"name":"Ada"}`)
	native.Native, native.PluginID, native.ClosureSHA256 = true, "", ""
	forced := req(`{"name":"Ada"}`)
	forced.Requirement = Forced
	cases := []struct {
		name  string
		first Request
		then  Request
		src   Source // "" means asked again
	}{
		{"another input", grant, req(`{"name":"Bob"}`), ByToolGrant},
		{"the same input", grant, req(`{"name":"Ada"}`), ByToolGrant},
		{"another tool", grant, otherTool, ""},
		{"another build of the plugin", grant, newBuild, ""},
		{"another plugin", grant, otherPlugin, ""},
		{"the model's grant and an extension's core/call", grant, nested, ""},
		{"an extension's grant and the model's call", nested, grant, ""},
		{"an extension's grant covers its next core/call", nested, func() Request { r := nested; r.Input = []byte(`{}`); return r }(), ByToolGrant},
		{"a native's grant", native, func() Request { r := native; r.Input = []byte(`{}`); return r }(), ByToolGrant},
		{"a native's grant and the extension tool of that name", native, grant, ""},
		{"a forced call is never covered", grant, forced, ""},
		{"a forced call grants nothing", forced, grant, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{answers: []Decision{AllowToolForSession, DenyDecision}}
			g := New(Ask, rec)
			if _, err := g.Check(ctx, tc.first, nil); err != nil {
				t.Fatal(err)
			}
			src, err := g.Check(ctx, tc.then, nil)
			if tc.src != "" {
				if err != nil || src != tc.src || len(rec.cards) != 1 {
					t.Fatalf("second call: %s, %v, asked %d times; want %s without asking", src, err, len(rec.cards), tc.src)
				}
				return
			}
			if !errors.Is(err, ErrDenied) || len(rec.cards) != 2 {
				t.Fatalf("second call: %s, %v, asked %d times; want it asked again (and denied)", src, err, len(rec.cards))
			}
		})
	}
}

func TestToolKeys(t *testing.T) {
	c := Caller{PluginID: "hello", ClosureSHA256: closure, Tool: "greet"}
	for got, want := range map[string]string{
		ToolKey("hello", closure, "greet"): "tool:ext:hello@" + closure + ":greet",
		callerToolKey(c, "read_file"):      "tool:extcall:ext:hello@" + closure + ":read_file",
		nativeToolKey("read_file"):         "tool:native:read_file",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
	exact, _ := Key("hello", closure, "greet", []byte(`{}`))
	if strings.HasPrefix(exact, "tool:") {
		t.Fatal("an exact key looks like a tool key")
	}
	var card Card
	ap := ApproverFunc(func(_ context.Context, cd Card) (Decision, error) { card = cd; return AllowOnce, nil })
	if _, err := New(Ask, ap).Check(context.Background(), req(`{}`), nil); err != nil {
		t.Fatal(err)
	}
	if card.ToolKey != ToolKey("hello", closure, "greet") || card.ToolChoice != "allow `greet` from `hello` at this exact version with any input for the session" {
		t.Fatalf("card %+v", card)
	}
}
