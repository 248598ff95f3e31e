package plugins

import (
	"io/fs"
	"syscall"
)

// statStamp is fi's stamp (see stamp), identity and change time included.
func statStamp(fi fs.FileInfo, target string) stamp {
	s := stamp{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime().UnixNano(), target: target}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino, s.ctime = uint64(st.Dev), st.Ino, st.Ctim.Nano()
	}
	return s
}
