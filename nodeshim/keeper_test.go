package nodeshim

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/cwx-dev/cwx/shared"
)

// TestKeeperEnvDropsWhatOnlyTheKeeperSees: the server never gets go-plugin's cookie (which
// would make the cwx binary the shim) or the lifeline's announcement.
func TestKeeperEnvDropsWhatOnlyTheKeeperSees(t *testing.T) {
	got := keeperEnv([]string{"PATH=/bin", shared.CookieKey + "=" + shared.CookieValue, shared.LifelineEnv + "=3", "HOME=/h"})
	if want := []string{"PATH=/bin", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("keeperEnv = %q, want %q", got, want)
	}
}

// TestExitStatus: the keeper exits with its server's code, 128 + a killing signal, 0 for a
// clean exit.
func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		script string
		want   int
	}{{"exit 0", 0}, {"exit 7", 7}, {"kill -9 $$", 137}, {"kill -15 $$", 143}} {
		err := exec.Command("/bin/sh", "-c", c.script).Run()
		if got := exitStatus(err); got != c.want {
			t.Errorf("%s: exitStatus = %d, want %d (%v)", c.script, got, c.want, err)
		}
	}
}

// TestRunKeeperUsage: a keeper without `--` and a command refuses with exit 2 before it
// changes anything of its process (the keeping itself: core's TestMCPServerTreeEnds).
func TestRunKeeperUsage(t *testing.T) {
	if got := RunKeeper(nil); got != 2 {
		t.Errorf("RunKeeper(nil) = %d, want 2", got)
	}
	if got := RunKeeper([]string{"x"}); got != 2 {
		t.Errorf("RunKeeper(x) = %d, want 2", got)
	}
}
