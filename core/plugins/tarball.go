package plugins

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// isTarball reports whether p looks like a gzip-compressed tarball (by its magic bytes).
func isTarball(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [2]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false, nil
	}
	return magic[0] == 0x1f && magic[1] == 0x8b, nil
}

// extractTarball unpacks a .tgz into dst (an empty private folder), refusing absolute or
// ".." entries, device files, hard links, symlinks that leave the package, and anything
// over lim (folders count as entries). Every folder, file and symlink is created through an
// os.Root opened on dst, so no entry can be written through a symlink that leaves it, even
// one planted by an earlier entry (ARCHITECTURE.md, “Plugins and trust”). When every entry
// sits under one top-level folder (npm's "package/"), that folder becomes the root and is
// returned; otherwise dst is returned. The caller removes dst on failure.
func extractTarball(source, tgz, dst string, lim Limits) (string, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return "", &RefusalError{Source: source, Reason: "not a gzip-compressed tarball: " + err.Error()}
	}
	defer zr.Close()
	root, err := os.OpenRoot(dst)
	if err != nil {
		return "", err
	}
	defer root.Close()
	stream := &boundedStream{r: zr, max: streamLimit(lim)}
	x := &extraction{source: source, tr: tar.NewReader(stream), root: root, lim: lim}
	if err := x.run(); err != nil {
		return "", err
	}
	return singleTopDir(dst)
}

// extraction is one tarball being unpacked under root.
type extraction struct {
	source  string
	tr      *tar.Reader
	root    *os.Root
	lim     Limits
	entries int   // folders, files and symlinks so far
	total   int64 // file content bytes so far
}

func (x *extraction) refuse(name, reason string) error {
	return &RefusalError{Source: x.source, Path: name, Reason: reason}
}

func (x *extraction) refuseErr(name, prefix string, err error) error {
	if errors.Is(err, errStreamTooLarge) {
		return &RefusalError{Source: x.source, Reason: tooLongStream(x.lim), Err: err}
	}
	if isEscape(err) {
		return &RefusalError{Source: x.source, Path: name, Reason: "is written through a symlink that leaves the package", Err: err}
	}
	return &RefusalError{Source: x.source, Path: name, Reason: prefix + err.Error(), Err: err}
}

func (x *extraction) run() error {
	for {
		hdr, err := x.tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return x.refuseErr("", "unreadable tarball: ", err)
		}
		// every header counts, the ones skipped below too, so no run of them is unbounded
		x.entries++
		if x.entries > x.lim.Files {
			return x.refuse("", tooManyEntries(x.lim))
		}
		// the size is judged before the type: a sparse entry announcing more than the
		// package may hold is refused at the byte limit, without reading its holes
		if hdr.Size < 0 || hdr.Size > x.lim.Bytes-x.total {
			return x.refuse(hdr.Name, tooManyBytes(x.lim))
		}
		name, reason := cleanTarName(hdr.Name)
		if reason != "" {
			return x.refuse(hdr.Name, reason)
		}
		if name == "" || hdr.Typeflag == tar.TypeXGlobalHeader || hdr.Typeflag == tar.TypeXHeader {
			continue
		}
		if err := x.entry(hdr, name); err != nil {
			return err
		}
	}
}

// entry creates one folder, file or symlink (name is cleaned and slash-separated).
func (x *extraction) entry(hdr *tar.Header, name string) error {
	rel := filepath.FromSlash(name)
	switch hdr.Typeflag {
	case tar.TypeDir:
		if err := x.root.MkdirAll(rel, 0o755); err != nil {
			return x.refuseErr(hdr.Name, "", err)
		}
	case tar.TypeReg: // the reader reports old-style TypeRegA entries as TypeReg
		x.total += hdr.Size // run checked it against what is left of lim.Bytes
		if err := writeTarFile(x.tr, x.root, rel, hdr); err != nil {
			return x.refuseErr(hdr.Name, "", err)
		}
	case tar.TypeSymlink:
		// Root.Symlink does not judge the target: symlinkEscapes does here, and scanTree
		// resolves every link of the unpacked tree afterwards.
		if why := symlinkEscapes(name, hdr.Linkname); why != "" {
			return x.refuse(hdr.Name, why)
		}
		if err := x.root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return x.refuseErr(hdr.Name, "", err)
		}
		if err := x.root.Symlink(hdr.Linkname, rel); err != nil {
			return x.refuseErr(hdr.Name, "", err)
		}
	case tar.TypeLink:
		return x.refuse(hdr.Name, "is a hard link; repack the package without hard links")
	case tar.TypeGNUSparse:
		return x.refuse(hdr.Name, "is a sparse file; repack the package without sparse files")
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return x.refuse(hdr.Name, "is a device file or pipe; a package holds only files, folders and symlinks inside it")
	default:
		return x.refuse(hdr.Name, fmt.Sprintf("has an unsupported tar entry type %q", hdr.Typeflag))
	}
	return nil
}

// isEscape reports whether err is os.Root refusing a path that leaves it (through "..",
// an absolute symlink or a symlink that resolves outside). The os package exports no value
// for it, so its message is matched.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

func tooManyEntries(lim Limits) string {
	return fmt.Sprintf("the package holds more than %d files (folders and symlinks included); cwx installs at most that many", lim.Files)
}

func tooLongStream(lim Limits) string {
	return fmt.Sprintf("the tarball unpacks to more than %d bytes (its files' %d MiB and %d bytes of tar headers per entry); cwx reads at most that", streamLimit(lim), lim.Bytes>>20, TarOverheadPerEntry)
}

// TarOverheadPerEntry is what a tarball may spend on each entry besides its content: the
// 512-byte header, padding and extended (pax or GNU long-name) headers. With the content
// bound it bounds the uncompressed stream read (streamLimit), so a tarball whose headers
// are huge is refused after at most that much work.
const TarOverheadPerEntry = 4096

// streamLimit is the most uncompressed tar bytes an install reads:
// lim.Bytes + lim.Files × TarOverheadPerEntry + 1 KiB for the end-of-archive blocks.
func streamLimit(lim Limits) int64 {
	return lim.Bytes + int64(lim.Files)*TarOverheadPerEntry + 1024
}

// errStreamTooLarge ends the read of a tarball whose uncompressed stream passes streamLimit.
var errStreamTooLarge = errors.New("the uncompressed tarball is over its bound")

// boundedStream fails every read once max bytes have passed.
type boundedStream struct {
	r   io.Reader
	n   int64
	max int64
}

func (b *boundedStream) Read(p []byte) (int, error) {
	if b.n >= b.max {
		return 0, errStreamTooLarge
	}
	if int64(len(p)) > b.max-b.n {
		p = p[:b.max-b.n]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

func tooManyBytes(lim Limits) string {
	return fmt.Sprintf("the package holds more than %d bytes (%d MiB); cwx installs at most that", lim.Bytes, lim.Bytes>>20)
}

// cleanTarName normalizes a tar entry name and returns why it is refused, if it is.
func cleanTarName(name string) (string, string) {
	if strings.ContainsRune(name, 0) || strings.ContainsRune(name, '\\') {
		return "", "has a NUL or backslash in its name"
	}
	if path.IsAbs(name) {
		return "", "is an absolute path; a package's entries must be relative"
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", "contains \"..\"; a package's entries must stay inside it"
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", ""
	}
	return c, ""
}

// writeTarFile creates rel under root with the entry's content. O_EXCL: a name that repeats
// in the archive, or a symlink planted at it, is refused.
func writeTarFile(r io.Reader, root *os.Root, rel string, hdr *tar.Header) error {
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return errors.New("appears twice in the tarball")
		}
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, hdr.Size))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != hdr.Size {
		err = errors.New("is truncated in the tarball")
	}
	return err
}

// singleTopDir returns dst/<d> when dst holds exactly one directory d and nothing else.
func singleTopDir(dst string) (string, error) {
	ents, err := os.ReadDir(dst)
	if err != nil {
		return "", err
	}
	if len(ents) == 1 && ents[0].IsDir() {
		return filepath.Join(dst, ents[0].Name()), nil
	}
	return dst, nil
}

// resolvesInside reports whether p, with every symlink resolved, lies inside root.
func resolvesInside(root, p string) bool {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	r, err := filepath.Rel(realRoot, real)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}
