package jshost

import _ "embed"

// authorTypes is types/cwx-plugin.d.ts: the declarations a plugin is written against. The
// host's typecheck holds them against src/ (types/check.ts), so the embedded copy describes
// the bundle embedded beside it.
//
//go:embed types/cwx-plugin.d.ts
var authorTypes []byte

// AuthorTypesName is the file name `cwx plugin new` writes the author types under.
const AuthorTypesName = "cwx-plugin.d.ts"

// AuthorTypes returns cwx-plugin.d.ts. The slice is shared: do not modify it.
func AuthorTypes() []byte { return authorTypes }
