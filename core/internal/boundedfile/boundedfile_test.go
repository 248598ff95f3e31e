package boundedfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "f")
	if err := os.WriteFile(regular, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse")
	if err := os.WriteFile(sparse, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<30); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		path   string
		follow bool
		want   error // nil: reads "hello"
	}{
		{"a regular file", regular, false, nil},
		{"a symlink, followed", link, true, nil},
		{"a symlink, refused", link, false, ErrSymlink},
		{"a FIFO does not block", fifo, false, ErrNotRegular},
		{"a device never ends", "/dev/zero", true, ErrNotRegular},
		{"a folder", dir, false, ErrNotRegular},
		{"a 1 GiB sparse file", sparse, false, ErrTooLarge},
		{"missing", filepath.Join(dir, "none"), false, fs.ErrNotExist},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Read(c.path, 1<<20, c.follow)
			if c.want == nil {
				if err != nil || string(got) != "hello" {
					t.Fatalf("Read: %q, %v", got, err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Read: %v, want %v", err, c.want)
			}
		})
	}
}
