package gate

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func card() Card {
	r := req(`{"name":"Ada"}`)
	r.OtherPlugins = 2
	canon, _ := Canonicalize(r.Input)
	return NewCard(r, "k", canon)
}

func TestTerminalPrompter(t *testing.T) {
	cases := []struct {
		in   string
		want Decision
	}{
		{"o\n", AllowOnce},
		{"once\n", AllowOnce},
		{"S\n", AllowSession},
		{"session\n", AllowSession},
		{"t\n", AllowToolForSession},
		{"tool\n", AllowToolForSession},
		{"d\n", DenyDecision},
		{"\n", DenyDecision},
		{"", DenyDecision},              // end of input
		{"maybe\ns\n", AllowSession},    // asked again
		{"y\nt\n", AllowToolForSession}, // y names no choice: asked again
		{"yes\nno\nn\n", DenyDecision},  // neither is a choice: three unreadable answers deny
		{"x\nx\nx\no\n", DenyDecision},  // three unreadable answers deny
		{"  o  \r\n", AllowOnce},        // CRLF and spaces
	}
	for _, tc := range cases {
		var out strings.Builder
		p := &TerminalPrompter{In: strings.NewReader(tc.in), Out: &out, IsTerminal: true}
		d, err := p.Approve(context.Background(), card())
		if err != nil || d != tc.want {
			t.Errorf("%q: %s, %v; want %s", tc.in, d, err, tc.want)
		}
		text := out.String()
		for _, s := range []string{"Extension tool `greet` from plugin `hello`", `input: {"name":"Ada"}`, "runs alongside 2 other plugins",
			"[o] allow once\n", "[s] allow this exact call (the same input) for the session\n",
			"[t] allow `greet` from `hello` at this exact version with any input for the session\n", "[d] deny\n",
			"Allow? o, s, t or d (default d): "} {
			if !strings.Contains(text, s) {
				t.Errorf("%q: prompt lacks %q:\n%s", tc.in, s, text)
			}
		}
	}
}

// TestTerminalPrompterForcedOffersNoSessionGrant: a forced card (shell) names only once and
// deny, and a session answer is not taken for either.
func TestTerminalPrompterForcedOffersNoSessionGrant(t *testing.T) {
	r := req(`{"command":"ls"}`)
	r.Requirement = Forced
	canon, _ := Canonicalize(r.Input)
	c := NewCard(r, "k", canon)
	if c.ToolKey != "" || c.ToolChoice != "" {
		t.Fatalf("a forced card offers a tool grant: %+v", c)
	}
	for in, want := range map[string]Decision{"s\nt\nsession\no\n": DenyDecision, "t\no\n": AllowOnce, "o\n": AllowOnce} {
		var out strings.Builder
		p := &TerminalPrompter{In: strings.NewReader(in), Out: &out, IsTerminal: true}
		d, err := p.Approve(context.Background(), c)
		if err != nil || d != want {
			t.Errorf("%q: %s, %v; want %s", in, d, err, want)
		}
		text := out.String()
		if strings.Contains(text, "[s]") || strings.Contains(text, "[t]") || !strings.Contains(text, "Allow? o or d (default d): ") {
			t.Errorf("%q: forced prompt offers a session grant:\n%s", in, text)
		}
	}
}

func TestTerminalPrompterLeavesFollowingInput(t *testing.T) {
	in := strings.NewReader("o\n/tools\n")
	p := &TerminalPrompter{In: in, Out: io.Discard, IsTerminal: true}
	if d, _ := p.Approve(context.Background(), card()); d != AllowOnce {
		t.Fatal(d)
	}
	rest, _ := io.ReadAll(in)
	if string(rest) != "/tools\n" {
		t.Fatalf("the prompter consumed following input: left %q", rest)
	}
}

func TestTerminalPrompterFailsClosedWithoutTerminal(t *testing.T) {
	var out strings.Builder
	p := &TerminalPrompter{In: strings.NewReader("s\n"), Out: &out, IsTerminal: false}
	d, err := p.Approve(context.Background(), card())
	if d != DenyDecision || !errors.Is(err, ErrNoTerminal) || !strings.Contains(err.Error(), "--approve auto") {
		t.Fatalf("%s, %v", d, err)
	}
	if out.Len() != 0 {
		t.Fatalf("wrote %q without a terminal", out.String())
	}
	// Through the gate: ask with no terminal is a denial that says what to do.
	_, err = New(Ask, p).Check(context.Background(), req(`{}`), nil)
	if !errors.Is(err, ErrDenied) || !errors.Is(err, ErrNoTerminal) {
		t.Fatalf("gate: %v", err)
	}
}

func TestTerminalPrompterEscapesControlCharacters(t *testing.T) {
	r := req(`{"s":"\u001b[2J\u202e"}`)
	r.PluginID = "evil\u001b]0;x\u0007"
	canon, _ := Canonicalize(r.Input)
	var out strings.Builder
	p := &TerminalPrompter{In: strings.NewReader("d\n"), Out: &out, IsTerminal: true}
	if _, err := p.Approve(context.Background(), NewCard(r, "k", canon)); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u202e") {
		t.Fatalf("raw control characters reached the terminal: %q", out.String())
	}
}

func TestTerminalPrompterHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := &TerminalPrompter{In: strings.NewReader("o\n"), Out: io.Discard, IsTerminal: true}
	if d, err := p.Approve(ctx, card()); d != DenyDecision || !errors.Is(err, context.Canceled) {
		t.Fatalf("%s, %v", d, err)
	}
}

// TestTerminalPrompterColorAndPause: colour is only added when asked for, around the core's
// own text (the plugin's input is never made bold), and Pause brackets the whole prompt.
func TestTerminalPrompterColorAndPause(t *testing.T) {
	for _, color := range []bool{false, true} {
		var out strings.Builder
		var events []string
		p := &TerminalPrompter{In: strings.NewReader("o\n"), Out: &out, IsTerminal: true, Color: color,
			Pause: func() func() {
				events = append(events, "pause at "+strconv.Itoa(out.Len()))
				return func() { events = append(events, "resume") }
			}}
		if d, err := p.Approve(context.Background(), card()); err != nil || d != AllowOnce {
			t.Fatalf("%s, %v", d, err)
		}
		text := out.String()
		if got := strings.Contains(text, "\x1b["); got != color {
			t.Errorf("color %v: escapes in the prompt: %v\n%q", color, got, text)
		}
		if color && (!strings.Contains(text, "\x1b[1mExtension tool `greet` from plugin `hello`") || !strings.Contains(text, "[\x1b[1mt\x1b[0m] allow `greet`")) {
			t.Errorf("the title or a letter is not bold:\n%q", text)
		}
		if strings.Contains(text, "\x1b[1minput") {
			t.Errorf("the input line is styled:\n%q", text)
		}
		if len(events) != 2 || events[0] != "pause at 0" || events[1] != "resume" {
			t.Errorf("pause events %v", events)
		}
	}
}
