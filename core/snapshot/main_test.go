package snapshot

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
