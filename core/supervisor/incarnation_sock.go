package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"google.golang.org/grpc"
)

// errNotPrivate is the cause of a socket folder the core refuses to connect through.
var errNotPrivate = errors.New("the shim's socket folder is not private")

// The channel to the shim is plaintext gRPC over a unix socket in a folder the core made
// for the incarnation (ARCHITECTURE.md, “Trust model”): reaching the socket needs the
// folder, and the folder is this user's alone. The dialer checks that again at the moment
// it connects, so a folder whose mode or owner changed under the core is refused instead
// of trusted.

// privateDialOption replaces go-plugin's dialer (a later dial option wins) with one that
// connects only through a private dir.
func privateDialOption(dir string) grpc.DialOption {
	return grpc.WithContextDialer(privateDialer(dir, os.Geteuid()))
}

// privateDialer dials the one unix socket in dir once checkPrivateDir(dir, uid) passed;
// gRPC's target address is ignored (go-plugin's is "unused").
func privateDialer(dir string, uid int) func(ctx context.Context, _ string) (net.Conn, error) {
	return func(ctx context.Context, _ string) (net.Conn, error) {
		sock, err := privateSocket(dir, uid)
		if err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}
}

// checkPrivateDir verifies that dir is a directory (not a symlink to one) with mode 0700
// owned by uid.
func checkPrivateDir(dir string, uid int) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotPrivate, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory (%s)", errNotPrivate, dir, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		return fmt.Errorf("%w: %s has mode %04o, want 0700", errNotPrivate, dir, perm)
	}
	if owner, ok := ownerOf(fi); !ok || owner != uid {
		return fmt.Errorf("%w: %s is owned by uid %d, not by uid %d", errNotPrivate, dir, owner, uid)
	}
	return nil
}

// privateSocket returns the path of the only unix socket in dir, owned by uid, after
// checkPrivateDir(dir, uid).
func privateSocket(dir string, uid int) (string, error) {
	if err := checkPrivateDir(dir, uid); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNotPrivate, err)
	}
	var found string
	for _, e := range entries {
		if e.Type()&fs.ModeSocket == 0 {
			continue
		}
		if found != "" {
			return "", fmt.Errorf("%w: %s holds more than one socket", errNotPrivate, dir)
		}
		found = filepath.Join(dir, e.Name())
	}
	if found == "" {
		return "", fmt.Errorf("%w: %s holds no socket", errNotPrivate, dir)
	}
	fi, err := os.Lstat(found)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNotPrivate, err)
	}
	if owner, ok := ownerOf(fi); !ok || owner != uid {
		return "", fmt.Errorf("%w: the socket %s is owned by uid %d, not by uid %d", errNotPrivate, found, owner, uid)
	}
	return found, nil
}

func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), true
}
