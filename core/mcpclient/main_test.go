package mcpclient

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// serverModeEnv makes the test binary a test MCP server (testserver_test.go) instead of
// running the tests: the tests configure it as a server's command with this variable in
// the server's env table.
const serverModeEnv = "CWX_TEST_MCP_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Exit(runTestServer(mode))
	}
	os.Exit(testenv.Main(m))
}
