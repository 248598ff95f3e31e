package bundle

import "github.com/cwx-dev/cwx/nodeshim/jshost"

// Embedded returns the extension-host bundle built into this binary (nodeshim/jshost,
// data only). Its Bytes are shared: do not modify them.
func Embedded() Bundle {
	return Bundle{Name: jshost.BundleName, Bytes: jshost.Bundle(), Licenses: jshost.Licenses()}
}

// EmbeddedSHA256 is the digest of the embedded bundle, the one host/hello must report.
func EmbeddedSHA256() string { return jshost.BundleSHA256() }
