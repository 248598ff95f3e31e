package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cwx-dev/cwx/core"
)

func TestPluginLiveGoldens(t *testing.T) {
	f := replFake(t) // plugin "hello" installed; the fake's tools belong to other plugins
	f.tools = append(f.tools, core.ToolInfo{Name: "hello_probe", PluginID: "hello", Origin: "extension:hello", Description: "Probe.\x1b[5m", InputSchema: json.RawMessage(`{"type":"object"}`)})
	f.commands = append(f.commands, core.CommandInfo{Name: "probe", PluginID: "hello", Origin: "extension:hello", Description: "Probe.", ArgumentHint: "<x>"})
	live, err := showLive(context.Background(), &bytes.Buffer{}, "hello")
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	writeLive(&text, live)
	checkGolden(t, "plugin-live.golden", text.Bytes())
	var js bytes.Buffer
	if err := writeJSON(&js, live); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "plugin-live-json.golden", js.Bytes())
}

func TestPluginLiveNotRunning(t *testing.T) {
	f := replFake(t)
	f.tools, f.commands = nil, nil
	f.reconcile = func(context.Context, *fakeCore) error {
		return fmt.Errorf("start the plugin tier: %w: no usable node runtime", core.ErrNotAvailable)
	}
	live, err := showLive(context.Background(), &bytes.Buffer{}, "hello")
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	writeLive(&text, live)
	checkGolden(t, "plugin-live-not-running.golden", text.Bytes())
}
