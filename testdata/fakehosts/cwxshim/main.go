// Command cwxshim is the shim half of cwx alone, for tests that must run while the CLI is
// mid-edit: the same dispatch as the repository's main.go (magic cookie required) with no
// CLI behind it. The supervisor tests build it as their shim binary.
package main

import (
	"fmt"
	"os"

	"github.com/cwx-dev/cwx/nodeshim"
	"github.com/cwx-dev/cwx/shared"
)

func main() {
	if !shared.Invoked(os.Args) {
		fmt.Fprintln(os.Stderr, "cwxshim is started by the supervisor tests as `cwxshim nodeshim --tier=...` with the go-plugin cookie")
		os.Exit(2)
	}
	os.Exit(nodeshim.Main(os.Args[2:]))
}
