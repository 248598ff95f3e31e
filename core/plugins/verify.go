package plugins

import (
	"io/fs"
	"sync"
	"sync/atomic"
	"time"
)

// racyWindow is how close to the start of a hash a file's change time may lie and still be
// answered from the cache: a file changed within it (or later) may have been changed in the
// same clock tick as the hash read it, so it is hashed again next time.
const racyWindow = 2 * time.Second

// stamp is what the cache compares of one file: its identity (device and inode), size,
// mode, modification and change times, and a symlink's target. Any difference re-hashes.
type stamp struct {
	dev, ino     uint64
	size         int64
	mode         fs.FileMode
	mtime, ctime int64 // nanoseconds since the epoch; ctime is 0 where the platform has none
	target       string
}

// verified is one staged folder that last hashed to its closure.
type verified struct {
	closure  string
	hashedAt time.Time
	files    map[string]stamp
}

// verifyCache remembers the staged folders whose bytes hashed to their closure, so the
// check before every activation hashes only when a file's stamp moved.
type verifyCache struct {
	mu sync.Mutex
	// +checklocks:mu
	dirs   map[string]verified
	hashes atomic.Int64 // full hashes done, for tests
}

// holds reports whether every file of files under dir has the stamp it had when dir last
// hashed to closure, none of them changed near or after that hash, and no file came or went.
func (c *verifyCache) holds(dir, closure string, files []treeFile) bool {
	c.mu.Lock()
	v, ok := c.dirs[dir]
	c.mu.Unlock()
	if !ok || v.closure != closure || len(v.files) != len(files) {
		return false
	}
	racy := v.hashedAt.Add(-racyWindow).UnixNano()
	for _, f := range files {
		st, ok := v.files[f.Rel]
		if !ok || st != f.stamp || st.mtime >= racy || st.ctime >= racy {
			return false
		}
	}
	return true
}

// remember records that files under dir, stamped before a hash that began at hashedAt,
// hashed to closure.
func (c *verifyCache) remember(dir, closure string, hashedAt time.Time, files []treeFile) {
	m := make(map[string]stamp, len(files))
	for _, f := range files {
		m[f.Rel] = f.stamp
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs == nil {
		c.dirs = map[string]verified{}
	}
	c.dirs[dir] = verified{closure: closure, hashedAt: hashedAt, files: m}
}

// forget drops dir (its bytes no longer hash to the closure, or it could not be read).
func (c *verifyCache) forget(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.dirs, dir)
}
