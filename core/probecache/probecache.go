package probecache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/internal/boundedfile"
)

// DefaultTTL is how long an entry is used after the probe that stored it.
const DefaultTTL = 24 * time.Hour

// fileVersion is the format of probes.json; a file of another version is ignored.
const fileVersion = 1

// maxFile bounds what is read of probes.json; a bigger file is corrupt.
const maxFile = 1 << 20

// maxEntries bounds how many entries are kept; the oldest go first.
const maxEntries = 256

// Cache is the probe cache of one cwx home. The zero value and a nil *Cache store nothing
// and find nothing. It holds no state of its own: every Get reads the file and every Put
// rewrites it, so it is safe for concurrent use.
type Cache struct {
	path string
	ttl  time.Duration
	now  func() time.Time
	log  hclog.Logger
}

// Options configures [Open].
type Options struct {
	TTL    time.Duration    // 0 means DefaultTTL
	Now    func() time.Time // nil means time.Now
	Logger hclog.Logger     // nil means no logging
}

// Open returns the cache kept under home ($CWX_HOME). Nothing is read or created yet.
func Open(home string, o Options) *Cache {
	c := &Cache{path: Path(home), ttl: o.TTL, now: o.Now, log: o.Logger}
	if c.ttl <= 0 {
		c.ttl = DefaultTTL
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	return c
}

// Path is where the cache of home is kept.
func Path(home string) string { return filepath.Join(home, "cache", "probes.json") }

type file struct {
	Version int              `json:"version"`
	Entries map[string]entry `json:"entries"`
}

type entry struct {
	Value string    `json:"value"`
	At    time.Time `json:"at"` // when the probe that stored it ran
}

// Get returns the value stored under key by a probe within the TTL.
func (c *Cache) Get(key string) (string, bool) {
	if c == nil || c.path == "" {
		return "", false
	}
	f := c.load()
	e, ok := f.Entries[key]
	if !ok || !c.fresh(e) {
		return "", false
	}
	return e.Value, true
}

func (c *Cache) fresh(e entry) bool {
	age := c.now().Sub(e.At)
	return age >= 0 && age < c.ttl
}

// Put stores value under key: call it only after the probe succeeded. A failure to write
// is logged at debug and otherwise ignored (the probe simply runs again next time).
func (c *Cache) Put(key, value string) {
	c.update(func(f file) bool {
		for k, e := range f.Entries {
			if !c.fresh(e) {
				delete(f.Entries, k)
			}
		}
		f.Entries[key] = entry{Value: value, At: c.now().UTC()}
		for len(f.Entries) > maxEntries {
			oldest := ""
			for k, e := range f.Entries {
				if oldest == "" || e.At.Before(f.Entries[oldest].At) {
					oldest = k
				}
			}
			delete(f.Entries, oldest)
		}
		return true
	})
}

// Forget removes every entry of kind (the kind given to [Key] or [Keyed]): for a probe that
// failed afresh, so that no later process trusts an earlier success of it.
func (c *Cache) Forget(kind string) {
	c.update(func(f file) bool {
		n := len(f.Entries)
		for k := range f.Entries {
			if strings.HasPrefix(k, kind+":") {
				delete(f.Entries, k)
			}
		}
		return len(f.Entries) != n
	})
}

// update is every read-modify-write of the file: under the lock, change edits the entries
// of what load read and says whether there is anything to write. A failure is logged at
// debug and otherwise ignored.
func (c *Cache) update(change func(file) bool) {
	if c == nil || c.path == "" {
		return
	}
	unlock, err := c.lock()
	if err != nil {
		c.log.Debug("probe cache not written", "path", c.path, "error", err)
		return
	}
	defer unlock()
	if f := c.load(); change(f) {
		if err := c.write(f); err != nil {
			c.log.Debug("probe cache not written", "path", c.path, "error", err)
		}
	}
}

// lockWait bounds how long Put and Forget wait for another writer.
const lockWait = 2 * time.Second

// lock takes the exclusive flock(2) of the cache's lock file, which every read-modify-write
// of probes.json holds, in this process (each call opens its own descriptor) and in others:
// otherwise two writers at once, such as the shim check and the runtime's resolution
// running side by side, each drop the other's entry. It gives up after lockWait.
func (c *Cache) lock() (unlock func(), err error) {
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "probes.lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the descriptor releases the lock
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: another writer held it for %s", f.Name(), lockWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// load reads the file; anything unreadable or malformed is logged and treated as empty.
func (c *Cache) load() file {
	empty := file{Version: fileVersion, Entries: map[string]entry{}}
	// one open without following a link or waiting on a FIFO, at most maxFile bytes read
	b, err := boundedfile.Read(c.path, maxFile, false)
	if err != nil {
		if !os.IsNotExist(err) {
			c.log.Debug("probe cache ignored: not a regular file of at most 1 MiB", "path", c.path, "error", err)
		}
		return empty
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil || dec.More() {
		c.log.Debug("probe cache ignored: corrupt", "path", c.path, "error", err)
		return empty
	}
	if len(f.Entries) > maxEntries { // cwx never writes more; evicting them one by one would cost n² at each Put
		c.log.Debug("probe cache ignored: too many entries", "path", c.path, "entries", len(f.Entries))
		return empty
	}
	if f.Version != fileVersion || f.Entries == nil {
		c.log.Debug("probe cache ignored: unknown version", "path", c.path, "version", f.Version)
		return empty
	}
	return f
}

// write replaces the file atomically: a temporary file in the same folder, fsynced,
// renamed over it.
func (c *Cache) write(f file) error {
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".probes-*.json")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op once renamed
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(name, c.path)
}

// Identity names the file at path as it is now: its resolved path, device, inode, size,
// modification and change times. Any change to the file (replaced, rewritten, touched,
// chmod-ed) or to where path leads gives another identity.
func Identity(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("stat %s: no device and inode", real)
	}
	return fmt.Sprintf("%s dev=%d ino=%d size=%d mtime=%d ctime=%d", real, uint64(st.Dev), st.Ino,
		fi.Size(), fi.ModTime().UnixNano(), ctime(st)), nil
}

// Key is the cache key of a probe of kind whose answer depends on parts (identities,
// arguments, settings): a digest, so the file holds no paths.
func Key(kind string, parts ...string) string {
	h := sha256.New()
	h.Write([]byte(kind))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return kind + ":" + hex.EncodeToString(h.Sum(nil))
}

// Keyed is Key over the identities of binaries followed by extra parts; ok is false when
// a binary cannot be identified (then nothing should be cached).
func Keyed(kind string, binaries []string, extra ...string) (key string, ok bool) {
	parts := make([]string, 0, len(binaries)+len(extra))
	for _, b := range binaries {
		id, err := Identity(b)
		if err != nil {
			return "", false
		}
		parts = append(parts, id)
	}
	return Key(kind, append(parts, extra...)...), true
}
