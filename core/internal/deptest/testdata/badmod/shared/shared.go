// Package shared reaches the core and, through the gate, the shim.
package shared

import _ "github.com/cwx-dev/cwx/core/gate"
