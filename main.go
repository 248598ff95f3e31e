// Command cwx is the out-of-process extension host for coding agents: the CLI, the
// embeddable core's front door, and (re-executed by the core) the per-tier node shim.
package main

import (
	"fmt"
	"os"

	"github.com/cwx-dev/cwx/core/cli"
	"github.com/cwx-dev/cwx/nodeshim"
	"github.com/cwx-dev/cwx/shared"
)

func main() {
	// The shim is dispatched before anything else parses flags or reads configuration, and
	// only when go-plugin's magic cookie is set (the core sets it when it re-executes itself).
	if len(os.Args) > 1 && os.Args[1] == shared.Subcommand {
		if !shared.Invoked(os.Args) {
			fmt.Fprintln(os.Stderr, "cwx nodeshim is started by cwx itself for each extension host tier; it is not meant to be run by hand")
			os.Exit(2)
		}
		os.Exit(nodeshim.Main(os.Args[2:]))
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
