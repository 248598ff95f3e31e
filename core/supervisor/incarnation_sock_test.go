package supervisor

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// listenIn makes a unix socket named name in dir and accepts on it until the test ends.
func listenIn(t *testing.T, dir, name string) {
	t.Helper()
	l, err := net.Listen("unix", filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
}

// privateSockDir is a 0700 folder of this user holding one listening socket; short, so the
// socket path fits sun_path.
func privateSockDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cwx-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	listenIn(t, dir, "plugin1")
	return dir
}

func TestPrivateSocketFolder(t *testing.T) {
	me := os.Geteuid()
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string) string // returns the folder to check
		uid     int
		want    string // "" means accepted
	}{
		{name: "private", prepare: func(_ *testing.T, dir string) string { return dir }, uid: me},
		{name: "group and others may enter", uid: me, want: "has mode 0755", prepare: func(t *testing.T, dir string) string {
			chmod(t, dir, 0o755)
			return dir
		}},
		{name: "others may write", uid: me, want: "has mode 0703", prepare: func(t *testing.T, dir string) string {
			chmod(t, dir, 0o703)
			return dir
		}},
		{name: "another user's folder", uid: me + 1, want: "is owned by uid", prepare: func(_ *testing.T, dir string) string { return dir }},
		{name: "a symlink to the folder", uid: me, want: "is not a directory", prepare: func(t *testing.T, dir string) string {
			link := dir + "-link"
			if err := os.Symlink(dir, link); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Remove(link) })
			return link
		}},
		{name: "no socket", uid: me, want: "holds no socket", prepare: func(t *testing.T, dir string) string {
			if err := os.Remove(filepath.Join(dir, "plugin1")); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{name: "two sockets", uid: me, want: "more than one socket", prepare: func(t *testing.T, dir string) string {
			listenIn(t, dir, "plugin2")
			return dir
		}},
		{name: "missing", uid: me, want: "no such file", prepare: func(_ *testing.T, dir string) string { return dir + "-gone" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.prepare(t, privateSockDir(t))
			conn, err := privateDialer(dir, tc.uid)(context.Background(), "unused")
			if tc.want == "" {
				if err != nil {
					t.Fatalf("dial through %s: %v", dir, err)
				}
				_ = conn.Close()
				return
			}
			if err == nil {
				_ = conn.Close()
				t.Fatalf("dial through %s succeeded, want a refusal saying %q", dir, tc.want)
			}
			if !errors.Is(err, errNotPrivate) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("dial error = %v, want errNotPrivate saying %q", err, tc.want)
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}
