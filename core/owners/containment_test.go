package owners

import (
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

func TestContainmentOf(t *testing.T) {
	own, shared := protocol.HostKey{Tier: protocol.TierPlugin, Group: "p"}, protocol.SharedHost(protocol.TierPlugin)
	sandboxed := SandboxStatus{Active: true}
	for _, tc := range []struct {
		st            SandboxStatus
		k             protocol.HostKey
		read, network []string
		want          string
	}{
		{sandboxed, shared, nil, nil, "sandboxed: no network, only its own files; shares one process with the plugin tier's other plugins"},
		{sandboxed, own, nil, nil, "sandboxed: no network, only its own files; in a host of its own"},
		{sandboxed, own, []string{"/srv/a", "${env:X}"}, []string{"https://a.example"},
			"sandboxed: no network, only its own files, and reads /srv/a, ${env:X}, granted https://a.example (not reachable yet); in a host of its own"},
		{SandboxStatus{Problem: "bwrap not found; install it"}, own, []string{"/srv/a"}, nil,
			"unsandboxed: runs JavaScript with your user permissions (bwrap not found)"},
		{SandboxStatus{}, shared, nil, nil, "unsandboxed: runs JavaScript with your user permissions"},
	} {
		if got := containmentLine(tc.st, tc.k, tc.read, tc.network); got != tc.want {
			t.Errorf("containmentLine(%+v, %v, %v, %v) =\n%q\nwant\n%q", tc.st, tc.k, tc.read, tc.network, got, tc.want)
		}
	}
}

func TestStripHostFrames(t *testing.T) {
	in := "RangeError: no room for this plugin\n" +
		"    at new apply (file:///h/plugins/p-1/abc/index.mjs:6:9)\n" +
		"    at Fiber.execute (file:///h/extension-host/6cb5/cwx-extension-host.mjs:2928:30)\n" +
		"    at file:///h/extension-host/6cb5/cwx-extension-host.mjs:3003:37\n" +
		"    at AsyncLocalStorage.run (node:internal/async_local_storage/async_hooks:91:14)\n" +
		"    at helper (file:///h/plugins/p-1/abc/lib/util.mjs:2:1)\n" +
		"    at async RpcPeer.serve (file:///h/extension-host/6cb5/cwx-extension-host.mjs:1396:22)"
	want := "RangeError: no room for this plugin\n" +
		"    at new apply (file:///h/plugins/p-1/abc/index.mjs:6:9)\n" +
		"    at helper (file:///h/plugins/p-1/abc/lib/util.mjs:2:1)"
	if got := stripHostFrames(in); got != want {
		t.Fatalf("stripHostFrames:\n%s\nwant\n%s", got, want)
	}
	if got := stripHostFrames("one line at cwx-extension-host.mjs:1"); got != "one line at cwx-extension-host.mjs:1" {
		t.Fatalf("a one-line message changed: %q", got)
	}
}
