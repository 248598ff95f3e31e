package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestDSHDefineToolThroughShim: a plugin written with @deepseek-ai/dsh-tools' defineTool
// registers through the real shim, its DSH parameter language becomes the input schema the
// core validates (the host never sees an invalid input), and output.render shapes the text.
func TestDSHDefineToolThroughShim(t *testing.T) {
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		e := newEnv(t, rt)
		e.install("dsh-define-tool")
		m := e.open(nil)
		sent := countSent(m) // before the host exists: the counter wraps it when it starts
		reconcile(t, m)
		var schema string
		for _, tool := range m.Tools() {
			if tool.Name == "shout" {
				schema = string(tool.InputSchema)
			}
		}
		if !strings.Contains(schema, `"required":["word"]`) || !strings.Contains(schema, `"enum":["plain","stars"]`) {
			t.Fatalf("input schema of shout = %s", schema)
		}
		res, err := m.CallTool(context.Background(), "shout", input(`{"word":"hey","times":2,"style":"stars"}`), CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Text(); got != "hey x2: *HEY HEY*" {
			t.Fatalf("rendered text = %q", got)
		}
		_, err = m.CallTool(context.Background(), "shout", input(`{"times":"two","style":"loud"}`), CallOptions{})
		if !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("invalid input: %v, want ErrInvalidInput", err)
		}
		for _, want := range []string{"word", "times", "style"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("violations %q do not name %s", err, want)
			}
		}
		if n := sent.count("tool/call"); n != 1 {
			t.Fatalf("the host saw %d tool/call frames after one valid and one invalid call, want 1", n)
		}
		if _, err := m.CallTool(context.Background(), "shout", input(`{"word":"ok"}`), CallOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := sent.count("tool/call"); n != 2 {
			t.Fatalf("counted %d tool/call frames after two valid calls, want 2", n)
		}
	})
}
