package plugins

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Compat is the pinned compatibility table of the JS host (nodeshim/jshost's
// dist/compatibility.json): which services a plugin may inject, grouped by who declares them,
// and which it may never provide. Its SHA256 is part of every review token and every receipt
// records it with what it said of each service the plugin injects (see [Store.CheckReceipt]).
type Compat struct {
	Version int               `json:"version"`
	Target  map[string]string `json:"target"`
	// Provided maps each group (dsh, cordis or cwx) to the services of that group a plugin
	// may inject.
	Provided map[string][]string `json:"provided_services"`
	// Builtin are the further services only a builtin module may inject.
	Builtin []string `json:"builtin_services"`
	// Refused maps each service no plugin may provide to why.
	Refused map[string]string `json:"refused_services"`
	// SHA256 is the lower-case hex sha256 of the table's bytes.
	SHA256 string `json:"-"`

	group map[string]string // service → the group that provides it
}

// CompatGroups are the groups of Compat.Provided, in the order reviews list them.
var CompatGroups = []string{"dsh", "cordis", "cwx"}

// ParseCompat decodes and checks a compatibility table: known fields only, groups among
// CompatGroups, each provided service in one group only, no empty name or reason.
func ParseCompat(data []byte) (*Compat, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Compat
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("compatibility table: %w", err)
	}
	if c.Version < 1 {
		return nil, errors.New("compatibility table: version must be 1 or more")
	}
	c.group = map[string]string{}
	for g, names := range c.Provided {
		if !isCompatGroup(g) {
			return nil, fmt.Errorf("compatibility table: unknown group %q in provided_services (want one of %s)", g, strings.Join(CompatGroups, ", "))
		}
		for _, n := range names {
			if n == "" {
				return nil, fmt.Errorf("compatibility table: an empty service name in provided_services.%s", g)
			}
			if prev, ok := c.group[n]; ok {
				return nil, fmt.Errorf("compatibility table: service %q is provided by both %s and %s", n, prev, g)
			}
			c.group[n] = g
		}
	}
	for n, why := range c.Refused {
		if n == "" || strings.TrimSpace(why) == "" {
			return nil, fmt.Errorf("compatibility table: refused service %q needs a name and a reason", n)
		}
	}
	sum := sha256.Sum256(data)
	c.SHA256 = hex.EncodeToString(sum[:])
	return &c, nil
}

func isCompatGroup(g string) bool {
	for _, k := range CompatGroups {
		if g == k {
			return true
		}
	}
	return false
}

// Provider is the group that provides service to plugins, or "" when no group does.
func (c *Compat) Provider(service string) string { return c.group[service] }

// Describe says what the table means for a plugin that injects service.
func (c *Compat) Describe(service string) string {
	if g := c.group[service]; g != "" {
		return "provided (" + g + ")"
	}
	if why, ok := c.Refused[service]; ok {
		return "not provided: " + why
	}
	return "not provided by cwx"
}

// legacyCompat is what cwx provided to plugins when receipts did not yet record the table
// (policy cwx-activation-1 before the table): a receipt without a table is judged as if it had
// been written under this one, so a plugin that injects only these services keeps its trust
// and one that injects a service provided since (prompt, storage, userQuestions, ...) is
// reviewed again.
var legacyCompat = &Compat{group: map[string]string{
	"tools": "dsh", "commands": "dsh",
	"timer": "cordis", "logger": "cordis", "events": "cordis", "reflect": "cordis", "registry": "cordis",
}}

// injectWord finds the word inject anywhere in an entry.
var injectWord = lazyre.New(`\binject\b`)

// unreadInjects is the key of ServiceStatus maps for an entry whose `inject` could not be
// read statically: any change of the table asks for review again.
const unreadInjects = "*"

// ServiceStatus is one service a plugin's entries inject, as the compatibility table says.
type ServiceStatus struct {
	Name     string `json:"name"`
	Provider string `json:"provider"` // dsh, cordis, cwx, or "" when cwx does not provide it
	Detail   string `json:"detail"`   // "provided (dsh)", "not provided: <why>", ...
}

// injectsOf reads the statically visible injects of r's entries from its staged copy; unread
// is true when one entry's could not be read.
func (s *Store) injectsOf(r *Record, closure string, entries []Entry) (names []string, unread bool) {
	dir := s.layout.StageDir(r.ID, closure)
	seen := map[string]bool{}
	for _, e := range entries {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
		if err != nil {
			unread = true
			continue
		}
		inj := StaticInjects(src)
		if inj == nil && injectWord().Match(src) {
			// the word without a literal declaration (a computed inject, a bundler's lowered
			// class field, a ctx.inject call): cwx cannot tell what it names, so it counts
			unread = true
		}
		for _, n := range inj {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names, unread
}

// serviceMap is what the table c says of names, for a receipt.
func serviceMap(c *Compat, names []string, unread bool) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = c.Provider(n)
	}
	if unread {
		m[unreadInjects] = ""
	}
	return m
}

// servicesChanged compares what a receipt recorded of each service with the current table
// and says, one clause per service, what changed; "" when nothing did.
func servicesChanged(recorded map[string]string, now *Compat) string {
	var out []string
	for _, n := range sortedKeys(recorded) {
		if n == unreadInjects {
			out = append(out, "cwx could not read which services it injects")
			continue
		}
		was, is := recorded[n], now.Provider(n)
		if was == is {
			continue
		}
		from := "not provided"
		if was != "" {
			from = "provided (" + was + ")"
		}
		out = append(out, fmt.Sprintf("service `%s` was %s and is now %s", n, from, now.Describe(n)))
	}
	return strings.Join(out, "; ")
}
