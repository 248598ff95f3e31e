// Package gen breaks "the host bundle package is data only": it imports code of the module.
package gen

import _ "github.com/cwx-dev/cwx/shared/frame"
