package cli

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain fails the run if any process a CLI test started outlives the tests.
func TestMain(m *testing.M) {
	mcptest.Main() // the test MCP server of mcp_e2e_test.go, when asked
	os.Exit(testenv.Main(m))
}
