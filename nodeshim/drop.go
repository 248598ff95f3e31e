package nodeshim

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// RunDropPrivileges is the privilege drop bubblewrap starts inside the sandbox when the core
// runs as root (args are those after "drop-privileges": `<uid>:<gid> <dir> -- <argv>`).
// It clears the supplementary groups, sets every gid and then every uid to the ones given,
// so the kernel clears the capabilities bubblewrap left it (CAP_SETUID and CAP_SETGID),
// clears the inheritable and ambient sets, checks that no capability is left and that no
// way back to uid 0 remains, arms the death signal the uid change cleared, changes into dir
// (the data folder, which is the user's: root without capabilities cannot enter it), drops
// go-plugin's cookie from the environment and execs the runtime in its place. It returns only when it could not, with exit status 126; the reason goes to
// fd 2, which the shim logs.
func RunDropPrivileges(args []string) int {
	if err := dropAndExec(args); err != nil {
		fmt.Fprintf(os.Stderr, "cwx privilege drop: %v\n", err)
	}
	return 126
}

// parseIdentity reads "<uid>:<gid>", refusing uid or gid 0 (nothing to drop to).
func parseIdentity(s string) (uid, gid int, err error) {
	u, g, ok := strings.Cut(s, ":")
	if ok {
		uid, err = strconv.Atoi(u)
		if err == nil {
			gid, err = strconv.Atoi(g)
		}
	}
	switch {
	case !ok || err != nil:
		return 0, 0, fmt.Errorf("identity %q is not <uid>:<gid>", s)
	case uid <= 0 || gid <= 0 || uid > 1<<32-2 || gid > 1<<32-2:
		return 0, 0, fmt.Errorf("identity %q: uid and gid must be between 1 and 4294967294", s)
	}
	return uid, gid, nil
}
