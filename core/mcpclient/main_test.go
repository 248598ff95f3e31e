package mcpclient

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// serverModeEnv makes the test binary the test MCP server (package mcptest) instead of
// running the tests: the tests configure it as a server's command with this variable in
// the server's env table.
const serverModeEnv = mcptest.ModeEnv

// holderEnv makes the test binary a stand-in core (runHolder) for TestServerDiesWithTheCore.
const holderEnv = "CWX_TEST_MCP_HOLDER"

func TestMain(m *testing.M) {
	mcptest.Main()
	if os.Getenv(holderEnv) != "" {
		os.Exit(runHolder())
	}
	os.Exit(testenv.Main(m))
}

// runHolder starts the test server from a Set, prints its pid and waits to be killed.
func runHolder() int {
	exe, err := os.Executable()
	if err != nil {
		return 1
	}
	set := NewSet(map[string]config.MCPServer{"t": {Name: "t", Command: exe, Env: map[string]string{serverModeEnv: "hang-after-init"},
		TimeoutS: 30, MaxResultBytes: config.DefaultMCPResultBytes}}, Options{})
	srv, _ := set.Server("t")
	if err := srv.Start(context.Background()); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(srv.Status().PID)
	time.Sleep(time.Hour)
	return 0
}
