package fetchproxy

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain fails the run when an exchange's pump (or a connection) outlives the tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
