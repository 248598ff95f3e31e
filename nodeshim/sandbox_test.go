package nodeshim

import (
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared"
)

func TestSandboxPlanHandling(t *testing.T) {
	plan := []string{"PATH=/usr/bin", sandboxEnv + "=bwrap"}
	for _, kv := range runtimeEnv(plan, 4242) {
		if strings.HasPrefix(kv, shared.ParentPIDEnv+"=") {
			t.Errorf("a sandboxed runtime got %s: its watchdog would see no parent", kv)
		}
	}
	if !strings.Contains(strings.Join(runtimeEnv(plan[:1], 4242), " "), shared.ParentPIDEnv+"=4242") {
		t.Error("an unsandboxed runtime lost its parent pid")
	}
	inner, err := runtimeArgv([]string{"/usr/bin/bwrap", "--unshare-pid", "--", "/bin/node", "host.mjs"})
	if err != nil || strings.Join(inner, " ") != "/bin/node host.mjs" {
		t.Errorf("runtimeArgv = %q, %v", inner, err)
	}
	if _, err := runtimeArgv([]string{"/usr/bin/bwrap", "--"}); err == nil {
		t.Error("a plan without a runtime after -- was accepted")
	}
	argv := []string{"/nonexistent/bwrap", "--unshare-pid", "--", "/bin/sh"}
	if err := checkBinaries(argv, true); err == nil || argv[1] != "--unshare-pid" {
		t.Errorf("checkBinaries = %v, argv now %q", err, argv)
	}
}

func TestSandboxStatusAndInfo(t *testing.T) {
	for _, tc := range []struct{ code, sig, wantCode, wantSig int }{
		{0, 0, 0, 0}, {1, 0, 1, 0}, {137, 0, -1, 9}, {143, 0, -1, 15}, {-1, 9, -1, 9}, {255, 0, 255, 0},
	} {
		if c, s := sandboxStatus(tc.code, tc.sig); c != tc.wantCode || s != tc.wantSig {
			t.Errorf("sandboxStatus(%d, %d) = %d, %d", tc.code, tc.sig, c, s)
		}
	}
	pid, err := readSandboxInit(strings.NewReader(`{"child-pid": 1234, "net-namespace": 1}`))
	if err != nil || pid != 1234 {
		t.Errorf("readSandboxInit = %d, %v", pid, err)
	}
	if _, err := readSandboxInit(strings.NewReader("")); err == nil {
		t.Error("an empty info pipe gave a pid")
	}
}
