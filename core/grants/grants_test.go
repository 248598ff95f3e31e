package grants

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
)

func grantsOf(paths ...string) config.Grants { return config.Grants{Read: paths, Written: paths} }

func TestResolve(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, user, ok, denied := mk("cwx-home"), mk("user"), mk("payloads/primary"), mk("vault")
	mk("user/.ssh")
	mk("user/projects/x")
	withSock := mk("with-socket/deep")
	l, err := net.Listen("unix", filepath.Join(withSock, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fifo := filepath.Join(mk("fifo-dir"), "f")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "to-home")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	okLink := filepath.Join(root, "to-payloads")
	if err := os.Symlink(ok, okLink); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: home, DenyRead: []string{denied}, UserHome: user}
	for _, tc := range []struct {
		name, path, want string // want: "" granted, else a part of the reason
	}{
		{"a folder", ok, ""},
		{"through a symlink", okLink, ""},
		{"a project in the user's home", filepath.Join(user, "projects/x"), ""},
		{"cwx's home", home, "cwx's home"},
		{"inside cwx's home", mk("cwx-home/plugins"), "cwx's home"},
		{"holding cwx's home", root, "cwx's home"},
		{"a symlink to cwx's home", link, "resolves to " + home},
		{"proc", "/proc/self", "/proc is a live kernel"},
		{"sys", "/sys", "live kernel or system tree"},
		{"dev", "/dev/null", "/dev is a live"},
		{"run", "/run", "/run is a live"},
		{"the whole disk", "/", "cwx's home"},
		{"etc holds the shadow file", "/etc", "/etc/shadow is a secret"},
		{"deny_read", denied, "deny_read"},
		{"the user's home holds .ssh", user, ".ssh is a credential store"},
		{"inside .ssh", filepath.Join(user, ".ssh"), "credential store"},
		{"a folder with a socket", filepath.Join(root, "with-socket"), "contains a unix socket"},
		{"a FIFO", fifo, "is a FIFO"},
		{"missing", filepath.Join(root, "nope"), "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(env, "p", grantsOf(tc.path))
			if tc.want == "" {
				if err != nil || len(got) != 1 {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.want) || !errors.Is(err, ErrRefused) {
				t.Fatalf("Resolve(%s) = %v, %v; want a refusal containing %q", tc.path, got, err, tc.want)
			}
			if !strings.Contains(err.Error(), `[plugins."p"] read "`+tc.path+`"`) {
				t.Fatalf("the refusal does not name the grant: %v", err)
			}
		})
	}
}

// TestCheckCatchesASwappedSymlink: a grant through a symlink resolved at load, then the link
// pointed at cwx's home, or at another folder, is refused at the next check.
func TestCheckCatchesASwappedSymlink(t *testing.T) {
	root := t.TempDir()
	home, a, b := filepath.Join(root, "home"), filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{home, a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: home}
	g := grantsOf(link)
	was, err := Resolve(env, "p", g)
	if err != nil || was[0] != a {
		t.Fatalf("resolve: %v %v", was, err)
	}
	if err := Check(env, "p", g, was); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	for target, want := range map[string]string{b: "now resolves to " + b, home: "cwx's home"} {
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := Check(env, "p", g, was); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("swapped to %s: %v; want %q", target, err, want)
		}
	}
}
