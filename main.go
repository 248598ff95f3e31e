// Command cwx is the out-of-process extension host for coding agents: the CLI, the
// embeddable core's front door, and (re-executed by the core) the per-tier node shim.
package main

import (
	"os"

	"github.com/cwx-dev/cwx/core/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
