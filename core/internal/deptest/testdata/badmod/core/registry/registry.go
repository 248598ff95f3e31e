// Package registry reaches process code through the supervisor: the supervisor itself and
// os/exec behind it.
package registry

import _ "github.com/cwx-dev/cwx/core/supervisor"
