//go:build !linux

package cli

import "golang.org/x/sys/unix"

// ioctlReadTermios is the ioctl that reads a terminal's attributes (isTerminal): TIOCGETA
// on the BSDs and darwin.
const ioctlReadTermios = unix.TIOCGETA
