// Package owners breaks "the owner layer does not link the core's facade".
package owners

import _ "github.com/cwx-dev/cwx/core"
