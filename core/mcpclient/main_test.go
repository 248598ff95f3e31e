package mcpclient

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// serverModeEnv makes the test binary the test MCP server (package mcptest) instead of
// running the tests: the tests configure it as a server's command with this variable in
// the server's env table.
const serverModeEnv = mcptest.ModeEnv

func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(testenv.Main(m))
}
