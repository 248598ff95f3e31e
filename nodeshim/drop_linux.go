package nodeshim

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

func dropAndExec(args []string) error {
	if len(args) < 4 || args[2] != "--" {
		return errors.New("usage: drop-privileges <uid>:<gid> <dir> -- <argv>")
	}
	uid, gid, err := parseIdentity(args[0])
	if err != nil {
		return err
	}
	dir, argv := args[1], args[3:]
	env := withoutCookie(os.Environ())
	// The capability sets, the death signal and the probe below are the calling thread's,
	// and exec keeps only the thread that calls it: all of it runs on one thread.
	runtime.LockOSThread()
	// Go applies each of these to every thread of the process.
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("clear the supplementary groups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("set gid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("set uid %d: %w", uid, err)
	}
	// The uid change cleared the permitted, effective and ambient sets; the inheritable set
	// bubblewrap filled is cleared here, so no file capability could ever use it.
	if err := clearInheritable(); err != nil {
		return err
	}
	if err := checkDropped(uid, gid); err != nil {
		return err
	}
	// The uid change cleared the death signal bubblewrap set (--die-with-parent).
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("arm the death signal: %w", err)
	}
	if err := os.Chdir(dir); err != nil {
		return fmt.Errorf("change into %s as uid %d: %w", dir, uid, err)
	}
	if err := syscall.Exec(argv[0], argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", argv[0], err)
	}
	return nil
}

// checkDropped fails unless every uid and gid is the target, and no capability is left in
// any set, so that no call could take the process back to root.
func checkDropped(uid, gid int) error {
	if setuid(0) == nil {
		return errors.New("uid 0 can still be regained")
	}
	ruid, euid, suid := unix.Getresuid()
	rgid, egid, sgid := unix.Getresgid()
	if ruid != uid || euid != uid || suid != uid || rgid != gid || egid != gid || sgid != gid {
		return fmt.Errorf("still uids %d/%d/%d, gids %d/%d/%d", ruid, euid, suid, rgid, egid, sgid)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read the capabilities left: %w", err)
	}
	for _, d := range data {
		if d.Effective|d.Permitted|d.Inheritable != 0 {
			return fmt.Errorf("capabilities left after the drop: %+v", data)
		}
	}
	return nil
}

// clearInheritable empties the inheritable and ambient capability sets.
func clearInheritable() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear the inheritable capabilities: %w", err)
	}
	return nil
}

// setuid is a raw setuid(2) on the calling thread only: a probe, which must fail.
func setuid(uid int) error {
	if _, _, e := unix.RawSyscall(unix.SYS_SETUID, uintptr(uid), 0, 0); e != 0 {
		return e
	}
	return nil
}
