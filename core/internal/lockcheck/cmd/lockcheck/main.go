// Command lockcheck checks the lock annotations of the packages it is given (see package
// lockcheck): `go run ./core/internal/lockcheck/cmd/lockcheck ./...`.
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/cwx-dev/cwx/core/internal/lockcheck"
)

func main() { multichecker.Main(lockcheck.Analyzers()...) }
