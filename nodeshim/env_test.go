package nodeshim

import (
	"slices"
	"testing"
)

func TestRuntimeEnvScrubsPluginVariables(t *testing.T) {
	plan := []string{
		"PATH=/usr/bin",
		"CWX_PLUGIN_COOKIE=3b1f0c7e-cwx-nodeshim-v1",
		"PLUGIN_PROTOCOL_VERSIONS=1",
		"PLUGIN_CLIENT_CERT=xxx",
		"PLUGIN_UNIX_SOCKET_DIR=/tmp/x",
		"CWX_HOST_PARENT_PID=1",
		"CWX_TEST_RUN_MARKER=abc",
		"NODE_OPTIONS=",
		"MY_PLUGIN_SETTING=kept", // only the PLUGIN_ prefix is go-plugin's
	}
	got := runtimeEnv(plan, 4242)
	want := []string{
		"PATH=/usr/bin",
		"CWX_TEST_RUN_MARKER=abc",
		"NODE_OPTIONS=",
		"MY_PLUGIN_SETTING=kept",
		"CWX_HOST_PARENT_PID=4242",
	}
	if !slices.Equal(got, want) {
		t.Errorf("env\n got %q\nwant %q", got, want)
	}
}
