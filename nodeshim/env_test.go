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

func TestWithJITReservation(t *testing.T) {
	tests := []struct {
		name  string
		env   []string
		limit uint64
		want  []string
	}{
		{"default limit", []string{"A=1"}, 1 << 30, []string{"A=1", "BUN_JSC_jitMemoryReservationSize=16777216"}},
		{"small limit", nil, 320 << 20, []string{"BUN_JSC_jitMemoryReservationSize=5242880"}},
		{"capped at the JSC default", nil, 128 << 30, []string{"BUN_JSC_jitMemoryReservationSize=1073741824"}},
		{"plan wins", []string{"BUN_JSC_jitMemoryReservationSize=1", "B=2"}, 1 << 30, []string{"BUN_JSC_jitMemoryReservationSize=1", "B=2"}},
		{"prefix only is not the key", []string{"BUN_JSC_jitMemoryReservationSizeX=1"}, 64 << 20,
			[]string{"BUN_JSC_jitMemoryReservationSizeX=1", "BUN_JSC_jitMemoryReservationSize=1048576"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.env)
			if got := withJITReservation(in, tt.limit); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if !slices.Equal(in, tt.env) {
				t.Errorf("input changed to %q", in)
			}
		})
	}
}
