package plugins

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// streamTarball writes a .tgz into dir on the fly: gen writes the tar stream, compressed as it
// goes, so no test holds a large archive in memory. It returns the file's path.
func streamTarball(t *testing.T, gen func(tw *tar.Writer, raw io.Writer) error) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big.tgz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	if err := gen(tw, zw); err != nil {
		t.Fatal(err)
	}
	_ = tw.Close() // after a hand-written stream the writer may refuse to pad; the reader refuses first
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeEntries writes the npm package's files and then n more entries made by mk.
func writeEntries(tw *tar.Writer, n int, mk func(i int) *tar.Header) error {
	for _, e := range npmPackage("many", "") {
		if err := tw.WriteHeader(&tar.Header{Name: e.Name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e.Body))}); err != nil {
			return err
		}
		if _, err := io.WriteString(tw, e.Body); err != nil {
			return err
		}
	}
	for i := range n {
		if err := tw.WriteHeader(mk(i)); err != nil {
			return err
		}
	}
	return nil
}

// zeroGzipMembers appends n gzip members of 1 MiB of zeros each to w: a stream that unpacks
// to n MiB of zeros while its file holds about a kilobyte per member.
func zeroGzipMembers(t *testing.T, w io.Writer, n int) {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	if _, err := zw.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := w.Write(member.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
}

// rawHeader is a 512-byte ustar-style header; fill, when set, adds fields before the
// checksum is computed.
func rawHeader(name string, typ byte, size int64, magic string, fill func(h []byte)) []byte {
	var h [512]byte
	copy(h[0:], name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", size))
	copy(h[136:], "00000000000\x00")
	h[156] = typ
	copy(h[257:], magic)
	if fill != nil {
		fill(h[:])
	}
	for i := 148; i < 156; i++ {
		h[i] = ' '
	}
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	return h[:]
}

// oldGNUSparseHeader is a GNU tar header of type 'S' announcing a sparse file of realSize
// bytes that holds no data at all in the archive.
func oldGNUSparseHeader(name string, realSize int64) []byte {
	return rawHeader(name, tar.TypeGNUSparse, 0, "ustar  \x00", func(h []byte) {
		copy(h[386:], "00000000000\x00") // one hole-only sparse map entry
		copy(h[398:], "00000000000\x00")
		copy(h[483:], fmt.Sprintf("%011o\x00", realSize))
	})
}

// paxSparse is a pax extended header in GNU sparse format 1.0 and its file entry, whose
// data is only the (empty) sparse map: a file of realSize bytes of holes.
func paxSparse(name string, realSize int64) []byte {
	var recs bytes.Buffer
	for _, kv := range [][2]string{{"GNU.sparse.major", "1"}, {"GNU.sparse.minor", "0"}, {"GNU.sparse.name", name}, {"GNU.sparse.realsize", fmt.Sprint(realSize)}} {
		body := " " + kv[0] + "=" + kv[1] + "\n"
		n := len(body) + 1
		for len(fmt.Sprint(n))+len(body) != n {
			n++
		}
		fmt.Fprintf(&recs, "%d%s", n, body)
	}
	var out bytes.Buffer
	out.Write(rawHeader("PaxHeaders/sparse", tar.TypeXHeader, int64(recs.Len()), "ustar\x0000", nil))
	out.Write(recs.Bytes())
	out.Write(make([]byte, (512-recs.Len()%512)%512))
	out.Write(rawHeader("GNUSparseFile.0/sparse", tar.TypeReg, 512, "ustar\x0000", nil))
	block := make([]byte, 512)
	copy(block, "0\n")
	out.Write(block)
	return out.Bytes()
}

// TestTarballLimits: a tarball of 100,000 entries, and one holding a 1 GiB file in any of
// the forms a tar stream can say it (a regular entry whose zeros come from a tiny gzip
// stream, an old GNU sparse entry, a pax sparse entry), are refused at the documented limits
// (MaxFiles, MaxBytes, the stream bound) after reading at most what those limits allow; the
// test files are streamed, never 1 GiB on disk.
func TestTarballLimits(t *testing.T) {
	const gib = 1 << 30
	cases := []struct {
		name string
		tgz  func(t *testing.T) string
		want string
	}{
		{"100,000 files", func(t *testing.T) string {
			return streamTarball(t, func(tw *tar.Writer, _ io.Writer) error {
				return writeEntries(tw, 100_000, func(i int) *tar.Header {
					return &tar.Header{Name: fmt.Sprintf("package/f/%d", i), Typeflag: tar.TypeReg, Mode: 0o644}
				})
			})
		}, fmt.Sprintf("more than %d files", MaxFiles)},
		{"100,000 entries named ./", func(t *testing.T) string {
			return streamTarball(t, func(tw *tar.Writer, _ io.Writer) error {
				return writeEntries(tw, 100_000, func(int) *tar.Header {
					return &tar.Header{Name: "./", Typeflag: tar.TypeDir, Mode: 0o755}
				})
			})
		}, fmt.Sprintf("more than %d files", MaxFiles)},
		{"a 1 GiB file of zeros", func(t *testing.T) string {
			// one gzip member holds the package and the entry's header; 1025 more of 1 MiB
			// of zeros each are its content and the end-of-archive blocks
			p := filepath.Join(t.TempDir(), "zeros.tgz")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			zw := gzip.NewWriter(f)
			tw := tar.NewWriter(zw)
			if err := writeEntries(tw, 0, nil); err != nil {
				t.Fatal(err)
			}
			if err := tw.WriteHeader(&tar.Header{Name: "package/zeros", Typeflag: tar.TypeReg, Mode: 0o644, Size: gib}); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil { // the tar writer is left open: its entry goes on below
				t.Fatal(err)
			}
			zeroGzipMembers(t, f, gib>>20+1)
			return p
		}, fmt.Sprintf("more than %d bytes", MaxBytes)},
		{"a 1 GiB old GNU sparse file", func(t *testing.T) string {
			return streamTarball(t, func(tw *tar.Writer, raw io.Writer) error {
				if err := writeEntries(tw, 0, nil); err != nil {
					return err
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				_, err := raw.Write(append(oldGNUSparseHeader("package/sparse", gib), make([]byte, 1024)...))
				return err
			})
		}, fmt.Sprintf("more than %d bytes", MaxBytes)},
		{"a 1 GiB pax sparse file", func(t *testing.T) string {
			return streamTarball(t, func(tw *tar.Writer, raw io.Writer) error {
				if err := writeEntries(tw, 0, nil); err != nil {
					return err
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				_, err := raw.Write(append(paxSparse("package/sparse", gib), make([]byte, 1024)...))
				return err
			})
		}, fmt.Sprintf("more than %d bytes", MaxBytes)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tgz := c.tgz(t)
			fi, err := os.Stat(tgz)
			if err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			s := newStore(t, home, nil)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			res, err := s.Install(tgz)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			var re *RefusalError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Install: %+v, %v; want a refusal with %q", res, err, c.want)
			}
			t.Logf("a %d-byte tarball refused in %v, %d MiB allocated: %v", fi.Size(), took.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20, err)
			if left, _ := os.ReadDir(filepath.Join(home, "plugins", ".tmp")); len(left) != 0 {
				t.Fatalf("the staging folder is left behind: %v", left)
			}
		})
	}
}

// TestTarballStreamBound: extended headers cost no entry and no content byte, so the bytes of
// the uncompressed stream are bounded on their own (streamLimit): a tarball whose few entries
// carry megabytes of pax records is refused once the stream passes the bound.
func TestTarballStreamBound(t *testing.T) {
	lim := Limits{Files: 16, Bytes: 1 << 20}
	tgz := streamTarball(t, func(tw *tar.Writer, _ io.Writer) error {
		return writeEntries(tw, 8, func(i int) *tar.Header {
			return &tar.Header{Name: fmt.Sprintf("package/f%d", i), Typeflag: tar.TypeReg, Mode: 0o644, Format: tar.FormatPAX,
				PAXRecords: map[string]string{"comment": strings.Repeat("x", 512<<10)}}
		})
	})
	s := newStore(t, t.TempDir(), func(o *Options) { o.Limits = lim })
	_, err := s.Install(tgz)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), fmt.Sprintf("unpacks to more than %d bytes", streamLimit(lim))) {
		t.Fatalf("Install: %v", err)
	}
}

// TestFolderWithASparseGiB: a folder holding a 1 GiB sparse file is refused at MaxBytes from
// its size alone, before a byte of it is read or copied.
func TestFolderWithASparseGiB(t *testing.T) {
	src := t.TempDir()
	for _, e := range npmPackage("sparse", "") {
		p := filepath.Join(src, strings.TrimPrefix(e.Name, "package/"))
		if err := os.WriteFile(p, []byte(e.Body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := filepath.Join(src, "big.bin")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1<<30); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	s := newStore(t, home, nil)
	if _, err := s.Install(src); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d bytes", MaxBytes)) {
		t.Fatalf("Install: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(home, "plugins", ".tmp")); len(left) != 0 {
		t.Fatalf("the staging folder is left behind: %v", left)
	}
}
