// Package filecycle is a package whose files use each other's names: a.go uses b.go's B and
// b.go uses a.go's A, while c.go only uses a.go.
package filecycle

// A is used by b.go.
func A() int { return B() + 1 }
