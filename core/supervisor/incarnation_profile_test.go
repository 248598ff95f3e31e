package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cwx-dev/cwx/shared"
)

// TestShimCPUProfile: with CWX_SHIM_CPUPROFILE in the core's environment, a shim that ends
// in order leaves a CPU profile (gzipped protobuf) named after its tier and pid.
func TestShimCPUProfile(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "shim")
	t.Setenv(shared.CPUProfileEnv, prefix)
	ch, shimPID, _, stop := rawShim(t, []string{"/bin/sh", "-c", "exec cat <&3 >&4"}, false)
	payload := []byte(`{"jsonrpc":"2.0","method":"x"}`)
	if err := ch.Send(context.Background(), payload); err != nil {
		stop()
		t.Fatal(err)
	}
	got, err := ch.Recv()
	stop()
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("echo: %q, %v", got, err)
	}
	path := fmt.Sprintf("%s.plugin.%d", prefix, shimPID)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no profile from the shim: %v", err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("%s is not a gzipped profile (%d bytes)", path, len(b))
	}
}
