package cli

import "golang.org/x/sys/unix"

// ioctlReadTermios is the ioctl that reads a terminal's attributes (isTerminal).
const ioctlReadTermios = unix.TCGETS
