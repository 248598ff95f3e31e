package cmdhooks

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain fails the run if a goroutine or a test's process outlives the tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
