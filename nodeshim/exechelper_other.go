//go:build !linux

package nodeshim

// detachTerminal does nothing outside Linux, where the plugin tier is never sandboxed.
func detachTerminal() error { return nil }
