package nodeshim

import (
	"strconv"
	"strings"

	"github.com/cwx-dev/cwx/shared"
)

// runtimeEnv returns the plan's environment without go-plugin's cookie and PLUGIN_*
// variables (and without a stale parent pid), plus CWX_HOST_PARENT_PID=shimPID.
func runtimeEnv(plan []string, shimPID int) []string {
	out := make([]string, 0, len(plan)+1)
	for _, kv := range plan {
		k, _, _ := strings.Cut(kv, "=")
		if k == shared.CookieKey || strings.HasPrefix(k, "PLUGIN_") || k == shared.ParentPIDEnv {
			continue
		}
		out = append(out, kv)
	}
	return append(out, shared.ParentPIDEnv+"="+strconv.Itoa(shimPID))
}
