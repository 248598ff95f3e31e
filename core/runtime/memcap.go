package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// MemoryCapReport says whether the kernel enforces the runtime's memory cap.
type MemoryCapReport struct {
	Mechanism  string `json:"mechanism"`   // "RLIMIT_DATA"
	LimitBytes uint64 `json:"limit_bytes"` // the cap tested (after clamping to an inherited hard limit)
	Enforced   bool   `json:"enforced"`    // an allocation past the cap failed while the same one succeeds without it
	Detail     string `json:"detail"`
}

// memProbeScript waits for a line on stdin (so the cap can be applied after start and
// before any allocation), then allocates a small and a big buffer and prints, as a JSON
// array, "ok" or the failure for each.
const memProbeScript = `const r=[];process.stdin.once('data',()=>{for(const m of [16,%d]){try{const b=Buffer.alloc(m*1048576);b[b.length-1]=1;r.push('ok')}catch(e){r.push('fail: '+String(e&&e.message))}}process.stdout.write(JSON.stringify(r)+'\n');process.exit(0)});`

// CheckMemoryCap runs rt twice with a script that allocates 16 MiB and then the cap plus
// 256 MiB: once without a cap (the control, where both must succeed) and once with
// RLIMIT_DATA set to limitBytes (where the big allocation must fail, by an exception or by
// the runtime dying). On Linux the cap is set by prlimit(2) right after start; elsewhere a
// shell sets it (ulimit -d) and then execs the runtime. limitBytes 0 means
// DefaultMemoryLimitBytes. timeout bounds each run.
func CheckMemoryCap(ctx context.Context, rt Runtime, limitBytes uint64, timeout time.Duration) MemoryCapReport {
	if limitBytes == 0 {
		limitBytes = DefaultMemoryLimitBytes
	}
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	rep := MemoryCapReport{Mechanism: "RLIMIT_DATA", LimitBytes: limitBytes}
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &cur); err == nil && cur.Max < limitBytes {
		rep.LimitBytes = cur.Max
	}
	bigMiB := rep.LimitBytes>>20 + 256
	script := fmt.Sprintf(memProbeScript, bigMiB)
	control, err := runMemProbe(ctx, rt, script, 0, timeout)
	if err != nil {
		rep.Detail = "inconclusive: the control run without a cap failed: " + err.Error()
		return rep
	}
	if control[0] != "ok" || control[1] != "ok" {
		rep.Detail = fmt.Sprintf("inconclusive: without a cap the runtime could not allocate %d MiB: %s", bigMiB, control[1])
		return rep
	}
	capped, err := runMemProbe(ctx, rt, script, rep.LimitBytes, timeout)
	switch {
	case err != nil:
		rep.Enforced = true
		rep.Detail = fmt.Sprintf("under a %d MiB cap the runtime failed: %v", rep.LimitBytes>>20, err)
	case capped[1] == "ok":
		rep.Detail = fmt.Sprintf("not enforced: a %d MiB allocation succeeded under a %d MiB cap", bigMiB, rep.LimitBytes>>20)
	case capped[0] != "ok":
		rep.Enforced = true
		rep.Detail = fmt.Sprintf("enforced, but even 16 MiB failed under a %d MiB cap: %s", rep.LimitBytes>>20, capped[0])
	default:
		rep.Enforced = true
		rep.Detail = fmt.Sprintf("a %d MiB allocation failed under a %d MiB cap (%s) and succeeds without it", bigMiB, rep.LimitBytes>>20, capped[1])
	}
	return rep
}

// runMemProbe runs the script on rt under RLIMIT_DATA = limit (when non-zero), applied
// before the script is released through stdin: after the start on Linux (applyDataLimit),
// before the exec elsewhere (dataLimitedCommand).
func runMemProbe(ctx context.Context, rt Runtime, script string, limit uint64, timeout time.Duration) ([2]string, error) {
	var out [2]string
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, stdout, stderr := dataLimitedCommand(ctx, limit, rt.Path, "-e", script)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return out, err
	}
	if err := cmd.Start(); err != nil {
		return out, err
	}
	if err := applyDataLimit(cmd.Process.Pid, limit); err != nil {
		_ = cmd.Cancel()
		_ = cmd.Wait()
		return out, err
	}
	_, _ = stdin.Write([]byte("go\n"))
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return out, fmt.Errorf("no answer within %s", timeout)
		}
		return out, fmt.Errorf("%w: %s", err, firstLine(stderr.String()))
	}
	var got []string
	if err := json.Unmarshal(bytes.TrimSpace([]byte(stdout.String())), &got); err != nil || len(got) != 2 {
		return out, fmt.Errorf("unexpected output %q", clip(stdout.String(), 120))
	}
	copy(out[:], got)
	return out, nil
}
