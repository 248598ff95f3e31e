package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

// hostile holds one of each kind of refused character: a bidi override and isolate, a C1
// CSI, an ESC sequence, a carriage return, a line separator, a BOM; and a joiner, kept.
const hostile = "Safe \u202eexe.txt\u202c \u2066x\u2069 \u009b2J \x1b]0;t\x07 a\rb \u2028 \ufeff 👩\u200d💻"

// assertInert fails when text holds a character package inert refuses (tab and newline
// aside), raw.
func assertInert(t *testing.T, what, text string) {
	t.Helper()
	if err := inert.Check(text); err != nil {
		t.Fatalf("%s %v:\n%q", what, err, text)
	}
}

// TestHostileManifestRefused: a description, name or version with a refused character is
// refused at install (exit 3), and the refusal itself prints inert.
func TestHostileManifestRefused(t *testing.T) {
	pluginHome(t)
	for _, field := range []string{`"description":"` + "Safe \u202eexe" + `"`, `"version":"1.0.0` + "\u009b" + `"`} {
		src := filepath.Join(t.TempDir(), "p")
		plugintest.WriteTree(t, src, map[string]string{
			"plugin.json": `{"name":"hostile","version":"1","native":"index.mjs",` + field + `}`,
			"index.mjs":   "export function apply() {}\n",
		})
		r := runPluginCLI(t, "plugin", "install", src)
		if r.code != ExitInvalid || !strings.Contains(r.stderr, "a control or bidi character") {
			t.Fatalf("install of %s: %+v", field, r)
		}
		assertInert(t, "install's refusal", r.stderr)
	}
}

// TestHostileTextPrintsInert: plugin text holding every kind of refused character (a
// record's description, as a state file written before admission refused it, and live tool
// and command descriptions) prints inert in `plugin review`, `plugin show`, `tool list` and
// `command list`, keeping its printable part; --json keeps it whole as \u escapes.
func TestHostileTextPrintsInert(t *testing.T) {
	f := enabledHello(t)
	f.tools[len(f.tools)-1].Description = hostile
	f.commands[len(f.commands)-1].Description = hostile
	statePath := filepath.Join(os.Getenv("CWX_HOME"), "state.json")
	data, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal("Says hello")
	hostileJSON, _ := json.Marshal(hostile)
	data = []byte(strings.Replace(string(data), string(plain), string(hostileJSON), 1))
	if err := os.WriteFile(statePath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"plugin", "review", "hello"}, {"plugin", "show", "hello"}, {"tool", "list"}, {"command", "list"}} {
		out := mustCLI(t, args...)
		assertInert(t, strings.Join(args, " "), out)
		if !strings.Contains(out, "Safe exe.txt") {
			t.Fatalf("%s lost the printable text:\n%s", strings.Join(args, " "), out)
		}
	}
	for _, args := range [][]string{{"plugin", "review", "hello", "--json"}, {"plugin", "show", "hello", "--json"}, {"tool", "list", "--json"}} {
		out := mustCLI(t, args...)
		assertInert(t, strings.Join(args, " "), out)
		for _, want := range []string{`\u202e`, `\u2066`, `\u009b`, `\u001b`, `\r`, `\u2028`, `\ufeff`, "👩\u200d💻"} {
			if !strings.Contains(out, want) {
				t.Fatalf("%s lacks %s:\n%s", strings.Join(args, " "), want, out)
			}
		}
	}
	var rv struct{ Description string }
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "review", "hello", "--json")), &rv); err != nil || rv.Description != hostile {
		t.Fatalf("review --json: description %q (%v), want the stored text back", rv.Description, err)
	}
}

// TestToolCallJSONEscapesControls: `tool call --json` writes U+009B (and the rest of the
// set) in structured and in text content as \u escapes, never raw.
func TestToolCallJSONEscapesControls(t *testing.T) {
	f := newFakeCore()
	f.tools = demoTools()
	f.call = func(context.Context, string, json.RawMessage, core.CallOptions) (core.ToolResult, error) {
		return core.ToolResult{
			Content:    []core.ContentBlock{{Type: "text", Text: "csi \u009b2J and \u202eevil"}},
			Structured: json.RawMessage("{\"screen\":\"\u009b2J\",\"rtl\":\"\u202eevil\",\"del\":\"\x7f\"}"),
		}, nil
	}
	useFake(t, f)
	out := mustCLI(t, "tool", "call", "hello_greet", "--input", `{"name":"Ada"}`, "--json")
	assertInert(t, "tool call --json", out)
	for _, want := range []string{`"screen": "\u009b2J"`, `"rtl": "\u202eevil"`, `"del": "\u007f"`, `csi \u009b2J and \u202eevil`} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %s:\n%s", want, out)
		}
	}
	var o ToolCallOutput
	if err := json.Unmarshal([]byte(out), &o); err != nil || o.Content[0].Text != "csi \u009b2J and \u202eevil" {
		t.Fatalf("decoded %+v (%v)", o, err)
	}
}

// TestShowReceiptFollowsBytes: a non-entry file of the staged copy changed after trust makes
// `plugin show` report the receipt invalid ("content changed, review again"), not valid.
func TestShowReceiptFollowsBytes(t *testing.T) {
	pluginHome(t)
	src := basicFixture(t)
	plugintest.WriteTree(t, src, map[string]string{"helper.mjs": "export const origin = 'reviewed';\n"})
	mustCLI(t, "plugin", "install", src)
	mustCLI(t, "plugin", "trust", "hello", "--token", reviewToken(t, "hello"))
	var show PluginShow
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "show", "hello", "--json")), &show); err != nil || show.Receipt != "valid" {
		t.Fatalf("before the change: receipt %q (%v)", show.Receipt, err)
	}
	helper := filepath.Join(show.StageDir, "helper.mjs")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(show.StageDir, 0o755))
	must(os.Chmod(helper, 0o644))
	must(os.WriteFile(helper, []byte("export const origin = 'rewritten';\n"), 0o644))

	out := mustCLI(t, "plugin", "show", "hello")
	if !strings.Contains(out, "receipt  content changed, review again") || strings.Contains(out, "receipt  valid") ||
		!strings.Contains(out, "status   content changed, review again") {
		t.Fatalf("show after the change:\n%s", out)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, "plugin", "show", "hello", "--json")), &show); err != nil || !strings.HasPrefix(show.Receipt, "content changed, review again") {
		t.Fatalf("show --json after the change: receipt %q (%v)", show.Receipt, err)
	}
}
