// Package gate imports the shim: a core package outside the bundle's data, and process
// code (the shim, and the supervisor and os/exec behind it).
package gate

import _ "github.com/cwx-dev/cwx/nodeshim"
