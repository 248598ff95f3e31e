package npmreg

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// Scheme is the prefix of a by-name install source.
const Scheme = "npm:"

// ErrBadSpec is matched by every error of [ParseSpec].
var ErrBadSpec = errdefs.New(errdefs.ErrInvalidInput, "not an npm package spec")

// Spec is a package name and what is asked of it: an exact version, a range or a dist-tag.
type Spec struct {
	Name  string // "dsh-tool" or "@scope/dsh-tool"
	Query string // "1.2.3", "^1.2", "next"; "latest" when none was given
}

// IsSpec reports whether src names a package rather than a path.
func IsSpec(src string) bool { return strings.HasPrefix(src, Scheme) }

// ParseSpec reads npm:<name>[@<version|range|tag>].
func ParseSpec(src string) (Spec, error) {
	rest, ok := strings.CutPrefix(src, Scheme)
	if !ok {
		return Spec{}, fmt.Errorf("%w: %q does not start with %q", ErrBadSpec, src, Scheme)
	}
	name, query := rest, ""
	at := strings.LastIndexByte(rest, '@')
	if at > 0 {
		name, query = rest[:at], rest[at+1:]
		if query == "" {
			return Spec{}, fmt.Errorf("%w: %q: nothing after @ (write a version, a range or a tag, or leave out the @)", ErrBadSpec, src)
		}
	}
	if err := ValidateName(name); err != nil {
		return Spec{}, fmt.Errorf("%w: %q: %v", ErrBadSpec, src, err)
	}
	if query == "" {
		query = "latest"
	}
	if len(query) > 256 || strings.ContainsAny(query, "\x00\n\r") {
		return Spec{}, fmt.Errorf("%w: %q: the version part is not a version, a range or a tag", ErrBadSpec, src)
	}
	return Spec{Name: name, Query: strings.TrimSpace(query)}, nil
}

// ValidateName checks npm's rules for a new package name: at most 214 characters, lower
// case, URL-safe, not starting with '.' or '_', and a scope only as "@scope/name".
func ValidateName(name string) error {
	if name == "" || len(name) > 214 {
		return fmt.Errorf("a package name has 1 to 214 characters")
	}
	local := name
	if strings.HasPrefix(name, "@") {
		scope, pkg, ok := strings.Cut(name[1:], "/")
		if !ok || scope == "" || pkg == "" {
			return fmt.Errorf("a scoped name is @scope/name")
		}
		if err := validPart(scope); err != nil {
			return fmt.Errorf("scope: %v", err)
		}
		local = pkg
	}
	return validPart(local)
}

func validPart(p string) error {
	if p[0] == '.' || p[0] == '_' {
		return fmt.Errorf("%q starts with . or _", p)
	}
	for _, c := range p {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", c)
		if !ok {
			return fmt.Errorf("%q has a character other than a-z, 0-9 and -._~", p)
		}
	}
	return nil
}

// documentPath is the path of name's package document under a registry: a scoped name
// keeps its @ and encodes its slash ("@scope%2fname"), as npm's clients send it.
func documentPath(name string) string {
	if scope, pkg, ok := strings.Cut(name, "/"); ok {
		return scope + "%2f" + url.PathEscape(pkg)
	}
	return url.PathEscape(name)
}
