package owners

import (
	"fmt"
	"path/filepath"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/runtime"
)

// missingPath finds the path of a Node or Bun "no such file" error in a plugin's message:
// ENOENT: no such file or directory, open '/x'.
var missingPath = lazyre.New(`ENOENT[^'"\n]*['"](/[^'"\n]+)['"]`)

// ExplainMissing returns what to add to a failure message of o's plugin that names a path
// the runtime could not find because its sandbox does not mount it: that it is not mounted
// and, when the plugin's manifest asks to read a folder holding it (cwx.grants.read), the
// config.toml line that grants it. "" when msg names no such path, or o runs unsandboxed.
func (o *Owner) ExplainMissing(msg string) string {
	if len(o.mounts) == 0 {
		return ""
	}
	m := missingPath().FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	path := filepath.Clean(m[1])
	if runtime.Covers(o.mounts, path) {
		return "" // mounted: the file is missing for real
	}
	hint := fmt.Sprintf(" (%s is not mounted in the sandbox of plugin `%s`: it sees only its own files and what config.toml grants it", path, o.id)
	if runtime.Covers([]string{"/tmp"}, path) {
		hint += ", and its /tmp is its own"
	}
	if req := o.requestHolding(path); req != "" {
		return hint + fmt.Sprintf("; it asks to read %s: to grant it, add read = [%q] under [plugins.%q] in config.toml)", req, req, o.id)
	}
	return hint + fmt.Sprintf("; to grant it, add read = [\"<folder>\"] under [plugins.%q] in config.toml)", o.id)
}

// requestHolding is the read request of o's manifest (as written) whose path, ${env:NAME}
// expanded, holds path; "" when none does.
func (o *Owner) requestHolding(path string) string {
	if o.want.StageDir == "" {
		return ""
	}
	m, err := plugins.ReadManifest(o.want.StageDir)
	if err != nil || m.Requests == nil {
		return ""
	}
	for _, r := range m.Requests.Read {
		p, err := config.ExpandEnv(r)
		if err == nil && filepath.IsAbs(p) && runtime.Covers([]string{filepath.Clean(p)}, path) {
			return r
		}
	}
	return ""
}
