package cli

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain fails the run if any process a CLI test started outlives the tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
