package nodeshim

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/shared"
)

// startCPUProfile starts a CPU profile of the shim when shared.CPUProfileEnv names a path
// prefix; the profile goes to <prefix>.<tier>.<pid> when the returned stop runs (at the
// shim's orderly exit; a shim killed outright writes nothing). It is a measuring aid
// (BENCHMARKS.md), off unless the core was started with the variable set.
func startCPUProfile(log hclog.Logger, tier string) (stop func()) {
	prefix := os.Getenv(shared.CPUProfileEnv)
	if prefix == "" {
		return func() {}
	}
	path := fmt.Sprintf("%s.%s.%d", prefix, tier, os.Getpid())
	f, err := os.Create(path)
	if err != nil {
		log.Warn("no CPU profile", "error", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Warn("no CPU profile", "error", err)
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Warn("writing the CPU profile", "path", path, "error", err)
		}
	}
}
