// Package lazyre compiles a package-level regular expression on its first use instead of
// at process start. A bounded repetition such as `{0,63}` expands into a large program,
// and every cwx process runs every package's init, including the shim, which matches no
// name at all (BENCHMARKS.md, "At process start").
package lazyre
