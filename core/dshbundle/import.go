package dshbundle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/plugins"
)

// ErrChanged is matched by the error of an import whose composition no longer hashes to the
// previewed one; nothing is installed. It is a case of plugins.ErrContentChanged.
var ErrChanged = errdefs.New(plugins.ErrContentChanged, "the bundle's composition changed since the preview")

// Preview resolves the bundle packages at srcs (each a folder or a .tgz; several are layered
// in order) against the plugins installed in s. Nothing is recorded.
func Preview(s *plugins.Store, srcs ...string) (*Composition, error) {
	return open(s, srcs, func(*Composition) error { return nil })
}

// Installed is what an import did with one plugin package of the composition.
type Installed struct {
	Package string   `json:"package"`
	Rows    []string `json:"rows"` // the ids of the rows that name it
	// Result is set when it was installed (disabled and untrusted, or unchanged).
	Result *plugins.InstallResult `json:"-"`
	// Skipped says why it was not installed: disabled, missing, unsupported, refused at
	// install, or its code is the installed plugin's.
	Skipped string `json:"skipped,omitempty"`
}

// Install resolves srcs again and, only when its composition hashes to want (the preview's,
// hex with or without "sha256:"), installs the package of every row that is not disabled
// and whose plugin the bundle carries, through s.InstallWith pinned to the closure the
// preview hashed: each is recorded disabled and untrusted, and bytes under an installed id
// become a new version that runs only once reviewed and trusted again. A package the store
// refuses (install scripts, dependencies it does not bundle, a bad manifest) is reported as
// refused and the others go on. Rows whose plugin is installed keep its code; missing and
// unsupported rows are reported, not installed.
func Install(s *plugins.Store, want string, srcs ...string) (*Composition, []Installed, error) {
	want = strings.TrimPrefix(strings.TrimSpace(want), "sha256:")
	var out []Installed
	c, err := open(s, srcs, func(c *Composition) error {
		if c.SHA256 != want {
			return fmt.Errorf("%w: it hashes to sha256:%s, not the previewed sha256:%s; preview it again", ErrChanged, c.SHA256, want)
		}
		var err error
		out, err = installRows(s, srcs, c)
		return err
	})
	return c, out, err
}

// open reads srcs, resolves them and calls then while unpacked tarballs still exist.
func open(s *plugins.Store, srcs []string, then func(*Composition) error) (*Composition, error) {
	var roots []string
	for _, src := range srcs {
		root, done, err := s.Unpack(src)
		if err != nil {
			return nil, err
		}
		defer done()
		roots = append(roots, root)
	}
	lookup := func(id string) (string, string, bool) {
		r, err := s.Get(id)
		if err != nil {
			return "", "", false
		}
		return r.Closure, r.Version, true
	}
	c, err := Resolve(roots, lookup, s.Limits())
	if err != nil {
		return nil, err
	}
	return c, then(c)
}

func installRows(s *plugins.Store, srcs []string, c *Composition) ([]Installed, error) {
	var out []Installed
	at := map[string]int{}
	for _, r := range c.Rows {
		if r.Group || r.Source == nil {
			continue
		}
		key := r.Source.Package
		if key == "" {
			key = "\x00" + r.Name
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, Installed{Package: r.Source.Package})
			if out[i].Package == "" {
				out[i].Package = r.Name
			}
		}
		out[i].Rows = append(out[i].Rows, r.ID)
		why := skipReason(r)
		if why == "" && out[i].Result == nil {
			src := srcs[r.Source.bundleIndex]
			res, err := s.InstallWith(r.Source.Dir, plugins.InstallOptions{
				Origin:  originOf(src, r.Source.Rel),
				Label:   src + " (" + r.Source.Rel + ")",
				Closure: r.Source.Closure,
			})
			if errors.Is(err, plugins.ErrRefused) || errors.Is(err, plugins.ErrManifest) {
				// refused by name, as `cwx plugin install` refuses it; the others go on
				out[i].Skipped = "refused at install: " + err.Error()
				continue
			}
			if err != nil {
				return out, fmt.Errorf("install %s of the bundle: %w", r.Source.Package, err)
			}
			if res.ID != r.Source.Package {
				return out, fmt.Errorf("install %s of the bundle: its folder holds %s", r.Source.Package, res.ID)
			}
			out[i].Result, out[i].Skipped = res, ""
		} else if out[i].Result == nil && (out[i].Skipped == "" || why != "disabled") {
			out[i].Skipped = why
		}
	}
	return out, nil
}

// skipReason says why a row's plugin is not installed, "" when it is.
func skipReason(r Row) string {
	switch {
	case r.Disabled != "" && !strings.HasPrefix(r.Disabled, "!!js "):
		return "disabled"
	case r.Source.Kind == SourceInstalled:
		return "installed already; the bundle does not carry it, so its code stays the reviewed one"
	case r.Source.Kind != SourceBundled:
		return r.Source.Kind + ": " + r.Source.Why
	}
	return ""
}

// originOf records a bundled plugin's folder inside a bundle folder, or the bundle tarball.
func originOf(src, rel string) *plugins.Origin {
	abs, err := filepath.Abs(src)
	if err != nil {
		return nil
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return &plugins.Origin{Type: plugins.OriginFolder, Path: filepath.Join(abs, filepath.FromSlash(rel))}
	}
	sri, err := plugins.TarballIntegrity(abs)
	if err != nil {
		return nil
	}
	return &plugins.Origin{Type: plugins.OriginTarball, Path: abs, Integrity: sri}
}
