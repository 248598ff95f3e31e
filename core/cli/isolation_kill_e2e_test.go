package cli

import (
	"bufio"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// hostRow is a row of `/host status`: the host and its runtime's pid.
var hostRow = regexp.MustCompile(`(?m)^(plugin(?::\S+)?)\s+ready\s+\S+ \S+\s+(\d+)\s`)

// TestCoreKilledLeavesNoHost: kill -9 of a `cwx repl` serving the shared plugin host and two
// plugins' own hosts leaves none of their runtimes behind: each shim sees its lifeline end and
// ends its runtime's group.
func TestCoreKilledLeavesNoHost(t *testing.T) {
	bin := testenv.BuildCWX(t, "")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			home := e2eHome(t, rt, "[plugins.\"fixture-tool\"]\nisolation = \"process\"\n\n[plugins.\"fixture-config\"]\nisolation = \"process\"\n")
			for _, f := range []string{"tool", "config", "command"} {
				src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", f))
				if err != nil {
					t.Fatal(err)
				}
				id := e2eTrusted(t, bin, home, src)
				e2eMust(t, bin, home, "plugin", "enable", id)
			}
			cmd := exec.Command(bin, "repl", "--approve", "auto")
			cmd.Env = append(cmd.Environ(), "CWX_HOME="+home)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			if _, err := io.WriteString(stdin, "/host status\n"); err != nil {
				t.Fatal(err)
			}
			pids := map[string]int{}
			sc := bufio.NewScanner(stdout)
			deadline := time.Now().Add(60 * time.Second)
			for len(pids) < 3 && time.Now().Before(deadline) && sc.Scan() {
				if m := hostRow.FindStringSubmatch(sc.Text()); m != nil {
					pids[m[1]], _ = strconv.Atoi(m[2])
				}
			}
			if len(pids) != 3 || pids["plugin:fixture-tool"] == 0 || pids["plugin:fixture-config"] == 0 || pids["plugin"] == 0 {
				t.Fatalf("/host status listed %v; want the shared host and two own hosts ready", pids)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			for host, pid := range pids {
				gone := false
				for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
					if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
						gone = true
						break
					}
				}
				if !gone {
					t.Errorf("the runtime of host %s (pid %d) outlived the killed core by 10 s", host, pid)
				}
			}
		})
	}
}
