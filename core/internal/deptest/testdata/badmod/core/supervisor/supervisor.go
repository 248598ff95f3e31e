// Package supervisor keeps every rule: it may run processes and read the bundle's data.
package supervisor

import (
	_ "os/exec"

	_ "github.com/cwx-dev/cwx/nodeshim/jshost"
)
