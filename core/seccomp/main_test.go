package seccomp_test

import (
	"os"
	"testing"

	"github.com/cwx-dev/cwx/core/seccomp/seccomptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestMain(m *testing.M) {
	seccomptest.Main() // the probe, when a test starts this binary as one
	os.Exit(testenv.Main(m))
}
