// Package deptest checks a module's import graph against rules written as a table.
//
// A [Rule] names the packages it applies to and the imports they must never reach, directly
// or through any chain of other packages. [Load] reads the graph of the non-test packages
// with `go list -deps -json`, and [Check] reports every package that reaches a refused
// import, with the chain that leads there, so a failing test says which import to remove.
//
// Test files are not part of the graph: a test may run the shim in-process or reach a
// runtime, and the rules are about what the shipped packages link, not what their tests do.
//
// The package's own tests hold the module's rules (ARCHITECTURE.md, “Package map”) and run
// the same checker against a deliberately bad module under testdata, so a rule that stops
// firing fails the test as surely as a rule that is broken.
package deptest
