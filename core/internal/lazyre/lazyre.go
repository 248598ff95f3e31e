package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern once, on its first call, and then returns
// that Regexp. Like regexp.MustCompile, it panics when pattern does not compile.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
