package plugintest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// WriteTree writes files (slash paths → content) under dir.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TarEntry is one entry of a crafted tarball.
type TarEntry struct {
	Name     string
	Type     byte // tar.TypeReg when zero
	Body     string
	Linkname string
	Size     int64 // header size when it must differ from len(Body) (oversize claims)
}

// Tarball writes a gzip-compressed tarball of entries to dir/name and returns its path. An
// entry whose Size exceeds its body ends the archive right after its header (a claim of
// more bytes than any reader should accept).
func Tarball(t testing.TB, dir, name string, entries []TarEntry) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	truncated := false
	for _, e := range entries {
		typ := e.Type
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.Name, Typeflag: typ, Mode: 0o644, Linkname: e.Linkname, ModTime: time.Unix(0, 0)}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.Body))
			if e.Size > hdr.Size {
				hdr.Size = e.Size
			}
		}
		if typ == tar.TypeDir {
			hdr.Mode = 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if e.Size > int64(len(e.Body)) {
			truncated = true
			break
		}
		if _, err := tw.Write([]byte(e.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if !truncated {
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
	} else if err := tw.Flush(); err != nil && !strings.Contains(err.Error(), "missed writing") {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// RepoRoot returns the repository root (the folder holding go.mod) above the working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Known npm specs used by tests.
const (
	SessionLogExport = "@deepseek-ai/dsh-session-log-export@0.1.0-rc.8"
	ToolTodo         = "@deepseek-ai/dsh-tool-todo@0.1.0-rc.8"
)

// NpmTarball returns the path of the npm-packed tarball of spec in testdata/.cache/,
// running `npm pack` when it is missing. The file's sha512 must match testdata/npm/tarballs.txt.
func NpmTarball(t testing.TB, spec string) string {
	t.Helper()
	root := RepoRoot(t)
	file, integrity := lookupSpec(t, root, spec)
	cache := filepath.Join(root, "testdata", ".cache")
	p := filepath.Join(cache, file)
	if err := verify(p, integrity); err == nil {
		return p
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fetch(cache, spec, file, integrity); err != nil {
		unavailable(t, fmt.Sprintf("cannot get %s with `npm pack`: %v", spec, err))
	}
	return p
}

func unavailable(t testing.TB, msg string) {
	t.Helper()
	if testenv.InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg + " (outside CI this skips)")
}

func lookupSpec(t testing.TB, root, spec string) (file, integrity string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata", "npm", "tarballs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == spec {
			return f[1], f[2]
		}
	}
	t.Fatalf("%s is not listed in testdata/npm/tarballs.txt", spec)
	return "", ""
}

func verify(p, integrity string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	sum := sha512.Sum512(data)
	got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if got != integrity {
		return fmt.Errorf("%s has %s, want %s", p, got, integrity)
	}
	return nil
}

// fetch runs npm pack under a lock on the cache folder (other test processes, and the JS
// host's tests, may fetch the same file) and renames the verified file into place.
func fetch(cache, spec, file, integrity string) error {
	lk, err := os.OpenFile(filepath.Join(cache, ".npm-pack.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer lk.Close()
	if err := syscall.Flock(int(lk.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lk.Fd()), syscall.LOCK_UN)
	final := filepath.Join(cache, file)
	if verify(final, integrity) == nil {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(cache, ".pack-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", spec, "--pack-destination", tmp, "--silent")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(out))
	}
	got := filepath.Join(tmp, file)
	if err := verify(got, integrity); err != nil {
		return err
	}
	if err := os.Rename(got, final); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}
