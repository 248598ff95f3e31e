package cli

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// authorPaths rewrites what a dev plugin's logs and errors say about its files so that it
// points at the author's folder, not at the staged copy the host runs: a staged path
// ($CWX_HOME/plugins/<id>/<closure>/…, with or without file://) becomes dir/…, and an error's
// location relative to the plugin root, " (at src/index.ts:3:5)", becomes absolute in dir.
type authorPaths struct {
	staged *regexp.Regexp
	dir    string
}

// errorAt is the location the JS host adds to a throw in apply, execute or handler.
var errorAt = lazyre.New(`\(at ([^\s():]+):(\d+):(\d+)\)`)

func newAuthorPaths(pluginDir, dir string) authorPaths {
	return authorPaths{
		staged: regexp.MustCompile(`(?:file://)?` + regexp.QuoteMeta(pluginDir+string(filepath.Separator)) + `[0-9a-f]{64}` + regexp.QuoteMeta(string(filepath.Separator))),
		dir:    dir,
	}
}

func (a authorPaths) rewrite(text string) string {
	text = a.staged.ReplaceAllLiteralString(text, a.dir+string(filepath.Separator))
	return errorAt().ReplaceAllStringFunc(text, func(m string) string {
		s := errorAt().FindStringSubmatch(m)
		if filepath.IsAbs(s[1]) || strings.HasPrefix(s[1], "node:") {
			return m
		}
		return "(at " + filepath.Join(a.dir, filepath.FromSlash(s[1])) + ":" + s[2] + ":" + s[3] + ")"
	})
}
