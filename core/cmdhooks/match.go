package cmdhooks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// claudeNames maps a native tool to the name Claude Code gives the same tool; hooks see and
// match that name.
var claudeNames = map[string]string{
	"shell":       "Bash",
	"read_file":   "Read",
	"grep_files":  "Grep",
	"file_search": "Glob",
	"list_dir":    "LS",
	"write_file":  "Write",
	"edit_file":   "Edit",
}

// ToolName returns the name hooks see for the cwx tool name: Claude Code's for a native, the
// tool's own otherwise.
func ToolName(tool string) string {
	if n, ok := claudeNames[tool]; ok {
		return n
	}
	return tool
}

// NativeName returns the cwx name of a tool named the way hooks see it: shell for Bash, and
// so on; any other name is returned as it is.
func NativeName(shown string) string {
	for native, cc := range claudeNames {
		if cc == shown {
			return native
		}
	}
	return shown
}

// matcher is a compiled matcher: every tool, a set of exact names, or a regular expression.
type matcher struct {
	all   bool
	exact []string
	re    *regexp.Regexp
}

// literal is what Claude Code treats as a list of exact names rather than a pattern.
var literal = lazyre.New(`^[A-Za-z0-9_|]+$`)

func compile(s string) (matcher, error) {
	switch {
	case s == "" || s == "*":
		return matcher{all: true}, nil
	case literal().MatchString(s):
		var names []string
		for _, n := range strings.Split(s, "|") {
			if n != "" {
				names = append(names, n)
			}
		}
		return matcher{exact: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("matcher %q is not a regular expression cwx can use (RE2: no look-around or back-references): %w", s, err)
	}
	return matcher{re: re}, nil
}

// match reports whether the matcher selects the cwx tool: by the name hooks see (Claude
// Code's for a native) and, for exact names, by the cwx name as well.
func (m matcher) match(tool string) bool {
	shown := ToolName(tool)
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(shown)
	}
	for _, n := range m.exact {
		if n == shown || n == tool {
			return true
		}
	}
	return false
}
