package seccomptest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Env is the variable that turns a test binary into the probe: "plain" or "self:<file>".
const Env = "CWX_SECCOMP_PROBE"

// Report is what the probe prints.
type Report struct {
	UID     int            `json:"uid"`
	Caps    string         `json:"caps"`    // the CapInh, CapPrm, CapEff and CapAmb lines of /proc/self/status
	Results map[string]int `json:"results"` // call label -> errno, 0 when it succeeded
	Skipped []string       `json:"skipped,omitempty"`
}

// Main runs the probe and exits when Env asks for it; otherwise it returns.
func Main() {
	mode := os.Getenv(Env)
	if mode == "" {
		return
	}
	rep, err := probe(mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, "seccomp probe:", err)
		os.Exit(3)
	}
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		os.Exit(3)
	}
	os.Exit(0)
}

// Decode runs cmd (a probe) and decodes its report.
func Decode(cmd *exec.Cmd) (Report, error) {
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Report{}, fmt.Errorf("probe %v: %w: %s%s", cmd.Args, err, out, stderr.String())
	}
	var rep Report
	if err := json.Unmarshal(out, &rep); err != nil {
		return Report{}, fmt.Errorf("probe %v printed %q: %w", cmd.Args, out, err)
	}
	return rep, nil
}
