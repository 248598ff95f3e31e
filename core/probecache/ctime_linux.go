//go:build linux

package probecache

import "syscall"

// ctime is the file's change time in nanoseconds.
func ctime(st *syscall.Stat_t) int64 { return st.Ctim.Sec*1e9 + st.Ctim.Nsec }
