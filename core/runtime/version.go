package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind names a JavaScript runtime, or the choice between them.
type Kind string

// The kinds a configuration may ask for. [Runtime.Kind] is always KindNode or KindBun.
const (
	KindNode Kind = "node"
	KindBun  Kind = "bun"
	KindAuto Kind = "auto"
)

// Floors, as people read them in messages.
const (
	NodeFloor = "^22.19 || >=24"
	BunFloor  = ">=1.4.0"
)

// version is a parsed runtime version: major.minor.patch with an optional pre-release tag.
type version struct {
	major, minor, patch int
	pre                 string
}

// parseVersion reads the first line a runtime prints for --version ("v22.23.5", "1.4.5",
// "1.4.0-canary.3+abc"). Anything else is an error quoting what was printed.
func parseVersion(out string) (version, string, error) {
	line := strings.TrimSpace(out)
	if i := strings.IndexByte(line, '\n'); i >= 0 || line == "" {
		return version{}, "", fmt.Errorf("--version printed %q, not a single version line", clip(out, 80))
	}
	raw := line
	s := strings.TrimPrefix(line, "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	var v version
	if i := strings.IndexByte(s, '-'); i >= 0 {
		v.pre, s = s[i+1:], s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return version{}, "", fmt.Errorf("--version printed %q, not a version", clip(raw, 80))
	}
	nums := [3]*int{&v.major, &v.minor, &v.patch}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return version{}, "", fmt.Errorf("--version printed %q, not a version", clip(raw, 80))
		}
		*nums[i] = n
	}
	return v, raw, nil
}

// less orders versions; a pre-release sorts before its release.
func (v version) less(w version) bool {
	if v.major != w.major {
		return v.major < w.major
	}
	if v.minor != w.minor {
		return v.minor < w.minor
	}
	if v.patch != w.patch {
		return v.patch < w.patch
	}
	return v.pre != "" && w.pre == ""
}

// checkFloor returns "" when v is acceptable for kind, else the reason it is not.
func checkFloor(kind Kind, v version, raw string) string {
	switch kind {
	case KindNode:
		switch {
		case v.major >= 24:
			return ""
		case v.major == 23:
			return fmt.Sprintf("%s is outside %s (Node 23 is not supported)", raw, NodeFloor)
		case v.less(version{major: 22, minor: 19}):
			return fmt.Sprintf("%s is below the 22.19 floor", raw)
		}
		return ""
	case KindBun:
		if v.less(version{major: 1, minor: 4}) {
			return fmt.Sprintf("%s is below the 1.4.0 floor", raw)
		}
		return ""
	}
	return fmt.Sprintf("unknown runtime kind %q", kind)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
