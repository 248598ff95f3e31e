// Package cli breaks "shipped packages link no test support".
package cli

import _ "github.com/cwx-dev/cwx/shared/testenv"
