//go:build !linux && !darwin

package plugins

import "io/fs"

// statStamp is fi's stamp (see stamp): size, mode and modification time only, as this
// platform's stat exposes no inode or change time here.
func statStamp(fi fs.FileInfo, target string) stamp {
	return stamp{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime().UnixNano(), target: target}
}
