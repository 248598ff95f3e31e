package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/gate"
	"github.com/cwx-dev/cwx/core/natives"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// deployTool is an embedder's native tool that is not auto-eligible.
type deployTool struct{}

func (deployTool) Spec() natives.Spec {
	return natives.Spec{Name: "deploy", Description: "Deploy the workspace.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"}},"required":["env"]}`)}
}

func (deployTool) Run(_ context.Context, c natives.Call) (natives.Result, error) {
	var in struct{ Env string }
	_ = json.Unmarshal(c.Input, &in)
	return natives.Result{Text: "deployed to " + in.Env}, nil
}

// nativeManager opens a Manager with no host, the built-in natives plus deploy, the posture
// and an approver answering d (nil: none).
func nativeManager(t *testing.T, posture string, ap *approver) *Manager {
	t.Helper()
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	set, err := natives.BuiltinWith(natives.WriteOptions{}).With(deployTool{})
	if err != nil {
		t.Fatal(err)
	}
	return e.open(func(o *Options) {
		o.PollInterval, o.Approval, o.Natives = -1, posture, set
		if ap != nil {
			o.Approver = ap
		}
	})
}

// TestNativesAreListed: Tools lists the natives with origin native and no plugin, sorted;
// the registry reserves their names.
func TestNativesAreListed(t *testing.T) {
	m := nativeManager(t, "ask", nil)
	var names []string
	for _, ti := range m.Tools() {
		if ti.Origin != OriginNative || ti.PluginID != "" || len(ti.InputSchema) == 0 || ti.Description == "" {
			t.Errorf("tool %+v", ti)
		}
		names = append(names, ti.Name)
	}
	want := []string{"deploy", "edit_file", "file_search", "grep_files", "list_dir", "read_file", "shell", "write_file"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}

// TestNativeCalls: reads run without a card in every posture and are confined to the
// call's workspace; shell asks on every call under ask and auto and is denied under deny or
// with no approver; an embedder's native that is not auto-eligible is approved like an
// extension tool (a card under ask, remembered for the session; none under auto).
func TestNativeCalls(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type call struct {
		tool, input string
		ws          string
		want        string // the text, or the error's kind below
		err         error
	}
	read := call{"read_file", `{"file_path":"a.txt"}`, ws, "     1\talpha\n", nil}
	shell := call{"shell", `{"command":"echo hi"}`, ws, "hi\n", nil}
	deploy := call{"deploy", `{"env":"prod"}`, ws, "deployed to prod", nil}
	denied := func(c call) call { c.want, c.err = "", ErrDenied; return c }
	tests := []struct {
		name     string
		posture  string
		approver bool
		calls    []call
		cards    []string // the tools asked about, in order
	}{
		{"reads under ask", "ask", true, []call{read, read}, nil},
		{"reads under deny", "deny", false, []call{read}, nil},
		{"read without a workspace", "auto", false, []call{{"read_file", `{"file_path":"a.txt"}`, "", "", ErrDenied}}, nil},
		{"read outside the workspace", "auto", false, []call{{"read_file", `{"file_path":"../x"}`, ws, "", ErrDenied}}, nil},
		{"read with bad input", "auto", false, []call{{"read_file", `{"file_path":1}`, ws, "", ErrInvalidInput}}, nil},
		{"shell under ask", "ask", true, []call{shell, shell}, []string{"shell", "shell"}},
		{"shell under auto", "auto", true, []call{shell, shell}, []string{"shell", "shell"}},
		{"shell under deny", "deny", true, []call{denied(shell)}, nil},
		{"shell with no approver", "ask", false, []call{denied(shell)}, nil},
		{"shell under auto with no approver", "auto", false, []call{denied(shell)}, nil},
		{"embedder native under ask", "ask", true, []call{deploy, deploy}, []string{"deploy"}},
		{"embedder native under auto", "auto", false, []call{deploy}, nil},
		{"embedder native under deny", "deny", true, []call{denied(deploy)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ap := &approver{d: gate.AllowSession}
			var use *approver
			if tc.approver {
				use = ap
			}
			m := nativeManager(t, tc.posture, use)
			for i, c := range tc.calls {
				res, err := m.CallTool(context.Background(), c.tool, json.RawMessage(c.input), CallOptions{Workspace: c.ws})
				if c.err != nil {
					if !errors.Is(err, c.err) {
						t.Errorf("call %d (%s): %v, want %v", i, c.tool, err, c.err)
					}
					continue
				}
				if err != nil || res.Text() != c.want || res.IsError {
					t.Errorf("call %d (%s): %q (error %v), %v; want %q", i, c.tool, res.Text(), res.IsError, err, c.want)
				}
			}
			var asked []string
			for _, card := range ap.cards {
				asked = append(asked, card.Tool)
				if !strings.HasPrefix(card.Key, "native:"+card.Tool+":") || !strings.HasPrefix(card.Title, "Native tool `"+card.Tool+"`") {
					t.Errorf("card %+v", card)
				}
			}
			if !slices.Equal(asked, tc.cards) {
				t.Errorf("cards for %v, want %v", asked, tc.cards)
			}
		})
	}
}

// TestOpenRefusesABadNativeSchema: an embedder's native whose schema would be refused at
// registration fails Open.
func TestOpenRefusesABadNativeSchema(t *testing.T) {
	e := newEnv(t, testenv.Runtime{Name: "node", Path: "/nonexistent/node"})
	set, err := natives.NewSet(badSchemaTool{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Open(context.Background(), Options{Home: e.home, Natives: set, PollInterval: -1})
	if err == nil {
		_ = m.Close(context.Background())
		t.Fatal("Open accepted a native whose schema is not an object")
	}
	if !strings.Contains(err.Error(), "native tool `broken`") {
		t.Errorf("error %v does not name the tool", err)
	}
}

type badSchemaTool struct{}

func (badSchemaTool) Spec() natives.Spec {
	return natives.Spec{Name: "broken", InputSchema: json.RawMessage(`{"type":"string"}`)}
}

func (badSchemaTool) Run(context.Context, natives.Call) (natives.Result, error) {
	return natives.Result{}, nil
}
