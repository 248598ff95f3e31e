package nodeshim

import (
	"errors"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// openTerminal opens the calling process's controlling terminal (/dev/tty), returning -1 and
// a nil error when it has none.
func openTerminal() (int, error) {
	fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENXIO) || errors.Is(err, unix.ENOENT) {
		return -1, nil
	}
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// detachTerminal gives up the calling process's controlling terminal, if it has one
// (TIOCNOTTY on /dev/tty), so what it then execs has no terminal to open as /dev/tty. The
// exec helper does not lead its session under the shim, and then only it loses the
// terminal; were it the leader, the whole session would, and the kernel would send SIGHUP to
// the foreground group, its own, which it ignores for the moment.
func detachTerminal() error {
	fd, err := openTerminal()
	if fd < 0 {
		return err // nil: no controlling terminal
	}
	defer unix.Close(fd)
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	return unix.IoctlSetInt(fd, unix.TIOCNOTTY, 0)
}
