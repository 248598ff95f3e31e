package bundle

import (
	"fmt"

	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// Embedded returns the extension-host bundle built into this binary (nodeshim/jshost,
// data only), with its builtin modules. Its Bytes are shared: do not modify them.
func Embedded() Bundle {
	mods, err := jshost.BuiltinModules()
	if err != nil {
		// the embedded table is fixed at build time and checked by jshost's tests
		panic(fmt.Sprintf("bundle: %v", err))
	}
	b := Bundle{Name: jshost.BundleName, Bytes: jshost.Bundle(), Licenses: jshost.Licenses()}
	for _, m := range mods {
		src, err := jshost.BuiltinModule(m.ID)
		if err != nil {
			panic(fmt.Sprintf("bundle: %v", err))
		}
		b.Modules = append(b.Modules, Module{ID: m.ID, Bytes: src})
	}
	return b
}

// EmbeddedSHA256 is the digest of the embedded bundle, the one host/hello must report.
func EmbeddedSHA256() string { return jshost.BundleSHA256() }
