package registry

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestMain fails the run if a goroutine or a test's process outlives the tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// The shared hosts of the two tiers, as most tests use them.
var (
	pluginHost  = protocol.SharedHost(protocol.TierPlugin)
	builtinHost = protocol.SharedHost(protocol.TierBuiltin)
)
