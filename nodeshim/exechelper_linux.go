package nodeshim

import (
	"errors"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// detachTerminal gives up the calling process's controlling terminal, if it has one
// (TIOCNOTTY on /dev/tty), so what it then execs has no terminal to open as /dev/tty. The
// exec helper does not lead its session under the shim, and then only it loses the
// terminal; were it the leader, the whole session would, and the kernel would send SIGHUP to
// the foreground group, its own, which it ignores for the moment.
func detachTerminal() error {
	fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENXIO) || errors.Is(err, unix.ENOENT) {
		return nil // no controlling terminal
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	return unix.IoctlSetInt(fd, unix.TIOCNOTTY, 0)
}
