package grants

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/runtime"
)

// ErrRefused is matched (errors.Is) by every *Refusal.
var ErrRefused = errors.New("grant refused")

// Refusal is why one read grant may not be bound.
type Refusal struct {
	PluginID string
	Grant    string // as config.toml writes it
	Reason   string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("[plugins.%q] read %q: %s", r.PluginID, r.Grant, r.Reason)
}

// Unwrap makes a Refusal a case of ErrRefused and of errdefs.ErrRefused.
func (r *Refusal) Unwrap() []error { return []error{ErrRefused, errdefs.ErrRefused} }

// maxWalk bounds the entries Resolve looks at inside one granted folder for sockets and
// FIFOs; a bigger folder is refused (grant a narrower one).
const maxWalk = 20000

// liveTrees are the kernel's and the system's live trees, never granted.
var liveTrees = []string{"/proc", "/sys", "/dev", "/run"}

// credentials are the credential stores of a user's home, relative to it.
var credentials = []string{
	".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker", ".netrc", ".npmrc", ".pypirc",
	".git-credentials", ".codex", ".claude", ".dsh", ".codewhale",
}

// Env is what Resolve checks against: the cwx home, the configured deny_read and the user's
// home (for its credential stores); the zero UserHome skips those.
type Env struct {
	Home     string
	DenyRead []string
	UserHome string
}

// EnvFor is the Env of a cwx home under cfg.
func EnvFor(home string, cfg *config.Config) Env {
	uh, _ := os.UserHomeDir()
	return Env{Home: home, DenyRead: cfg.ExtensionHost.DenyRead, UserHome: uh}
}

// Resolve canonicalizes plugin id's read grants and refuses what may never be granted. It
// returns the canonical paths in the order of g.Read, or every refusal joined.
func Resolve(env Env, id string, g config.Grants) ([]string, error) {
	refused := env.refusedRoots()
	var out []string
	var errs []error
	for i, p := range g.Read {
		real, why := resolveOne(p, refused)
		if why != "" {
			errs = append(errs, &Refusal{PluginID: id, Grant: written(g, i), Reason: why})
			continue
		}
		out = append(out, real)
	}
	return out, errors.Join(errs...)
}

// Check resolves g again and compares it with was, the resolution a sandbox was built from:
// a grant refused now, or resolving elsewhere (a symlink swapped since), is an error.
func Check(env Env, id string, g config.Grants, was []string) error {
	now, err := Resolve(env, id, g)
	if err != nil {
		return err
	}
	for i := range now {
		if i >= len(was) || now[i] != was[i] {
			prev := ""
			if i < len(was) {
				prev = was[i]
			}
			return &Refusal{PluginID: id, Grant: written(g, i), Reason: fmt.Sprintf("now resolves to %s, not %s as when the configuration was read; a symlink changed: check it, then run `cwx plugin reload`", now[i], prev)}
		}
	}
	return nil
}

// written is read grant i as config.toml writes it.
func written(g config.Grants, i int) string {
	if i < len(g.Written) {
		return g.Written[i]
	}
	return g.Read[i]
}

// refusedRoot is a path no grant may be, be inside or contain, and why.
type refusedRoot struct{ path, why string }

// refusedRoots are the refused paths in the order a refusal names the first that applies:
// cwx's home, the live trees, the secrets, deny_read, the credential stores (these two kinds
// only where they exist), each canonicalized as well where it exists.
func (env Env) refusedRoots() []refusedRoot {
	var out []refusedRoot
	add := func(p, why string, mustExist bool) {
		if p == "" {
			return
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil && mustExist {
			return
		}
		out = append(out, refusedRoot{filepath.Clean(p), why})
		if err == nil && real != filepath.Clean(p) {
			out = append(out, refusedRoot{real, why})
		}
	}
	add(env.Home, "it is cwx's home ($CWX_HOME) or holds it: plugins never reach cwx's state, receipts or other plugins", false)
	for _, t := range liveTrees {
		add(t, t+" is a live kernel or system tree, never granted", false)
	}
	for _, s := range runtime.SecretPaths() {
		add(s, s+" is a secret the sandbox always masks", true)
	}
	for _, d := range env.DenyRead {
		add(d, d+" is in [extension_host] deny_read", false)
	}
	if env.UserHome != "" {
		for _, c := range credentials {
			p := filepath.Join(env.UserHome, c)
			add(p, p+" is a credential store", true)
		}
	}
	return out
}

// resolveOne canonicalizes p and checks it; why is "" when p may be granted.
func resolveOne(p string, refused []refusedRoot) (real, why string) {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "does not exist; create it or fix the path"
	}
	if err != nil {
		return "", "cannot be resolved: " + err.Error()
	}
	for _, r := range refused {
		if reason := r.why; runtime.Covers([]string{r.path}, real) || runtime.Covers([]string{real}, r.path) {
			if real != p {
				reason = fmt.Sprintf("resolves to %s, and %s", real, reason)
			}
			return "", reason
		}
	}
	if why := special(real); why != "" {
		return "", why
	}
	return real, ""
}

// special refuses a socket or FIFO at p or anywhere under it (symlinks inside are not
// followed: the bind shows them as links, resolved inside the sandbox's view).
func special(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	if isSpecial(fi.Mode()) {
		return fmt.Sprintf("is a %s; a read-only bind does not stop connecting to it", kind(fi.Mode()))
	}
	if !fi.IsDir() {
		return ""
	}
	n, why := 0, ""
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are unreadable inside the sandbox too
		}
		if n++; n > maxWalk {
			why = fmt.Sprintf("holds more than %d entries, too many to check for sockets; grant a narrower folder", maxWalk)
			return filepath.SkipAll
		}
		if isSpecial(d.Type()) {
			why = fmt.Sprintf("contains a %s (%s); a read-only bind does not stop connecting to it: grant a folder without it", kind(d.Type()), q)
			return filepath.SkipAll
		}
		return nil
	})
	return why
}

func isSpecial(m fs.FileMode) bool { return m&(fs.ModeSocket|fs.ModeNamedPipe) != 0 }

func kind(m fs.FileMode) string {
	if m&fs.ModeSocket != 0 {
		return "unix socket"
	}
	return "FIFO"
}

// Refusals lists the refusals err holds (Resolve's joined error), in order.
func Refusals(err error) []*Refusal {
	var out []*Refusal
	var walk func(error)
	walk = func(e error) {
		if r, ok := e.(*Refusal); ok {
			out = append(out, r)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
		}
	}
	walk(err)
	return out
}
