package mcpserve

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/core/internal/mcptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain runs the test MCP server (package mcptest) when a test's config asks for it,
// and otherwise the tests, failing the run if a goroutine the tests started outlives them.
func TestMain(m *testing.M) {
	mcptest.Main()
	os.Exit(testenv.Main(m))
}
