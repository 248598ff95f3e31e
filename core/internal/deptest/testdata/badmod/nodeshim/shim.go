// Package nodeshim breaks "the shim links no core" directly (registry) and through it
// (supervisor).
package nodeshim

import _ "github.com/cwx-dev/cwx/core/registry"
