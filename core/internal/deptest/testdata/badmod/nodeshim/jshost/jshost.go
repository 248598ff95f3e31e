// Package jshost keeps every rule: it imports the standard library only.
package jshost

import _ "embed"
