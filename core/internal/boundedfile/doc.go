// Package boundedfile reads the small files the core keeps under $CWX_HOME (state.json,
// catalog entries, probes.json, config.toml) without trusting what sits at their path. A
// process of the same user may have put anything there: a FIFO (which would block an open
// forever), a device such as /dev/zero (which never ends), a symlink, a file of gigabytes.
// [Read] opens without blocking, refuses what is not a regular file, optionally refuses a
// symlink, and reads at most the caller's limit, so a hostile file costs one open, one
// fstat and at most limit+1 bytes of memory.
package boundedfile
