// Package cli breaks "shipped packages link no test support" and "the CLI goes through the
// core's facade".
package cli

import (
	_ "github.com/cwx-dev/cwx/core/owners"
	_ "github.com/cwx-dev/cwx/shared/testenv"
)
