package mcpserve

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain fails the run if a goroutine the tests started outlives them.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
