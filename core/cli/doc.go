// Package cli holds the cobra commands of the cwx binary, one file per command group.
//
// Output is written for people by default (tables, plain sentences, errors that say what
// to do) and for programs with --json (documented structs whose goldens live in
// testdata/cli). Every command maps its failure to the exit codes of DESIGN.md §7b through
// [ExitError]: 0 ok, 1 internal error, 2 usage or unreadable input, 3 invalid input or a
// check that disagrees, 4 denied, 5 unavailable, 6 plugin error, 7 timeout or cancelled.
package cli
