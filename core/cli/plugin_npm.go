package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/npmreg"
	"github.com/cwx-dev/cwx/core/plugins"
)

// npmrcPath is the user's npm configuration file, read for its registry= line.
var npmrcPath = func() string {
	if p := os.Getenv("NPM_CONFIG_USERCONFIG"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".npmrc")
}

// openRegistry opens the registry config.toml, ~/.npmrc or npm's default names.
func openRegistry(cfg *config.Config) (*npmreg.Registry, error) {
	u, from, err := npmreg.Choose(cfg.Install.NpmRegistry, npmrcPath())
	if err != nil {
		return nil, exitf(ExitInvalid, "%w", err)
	}
	r, err := npmreg.Open(u, from)
	if err != nil {
		return nil, exitf(ExitInvalid, "%w (fix %s)", err, from)
	}
	return r, nil
}

// npmFetched is a downloaded tarball whose integrity matched, ready for Store.InstallWith.
type npmFetched struct {
	Path    string
	Version *npmreg.Version
	Origin  *plugins.Origin
	cleanup func()
}

func (f *npmFetched) Close() { f.cleanup() }

// resolveNpm resolves spec against the registry's package document.
func resolveNpm(ctx context.Context, reg *npmreg.Registry, spec npmreg.Spec) (*npmreg.Document, *npmreg.Version, error) {
	doc, err := reg.Document(ctx, spec.Name)
	if err != nil {
		return nil, nil, npmErr(err)
	}
	v, err := doc.Resolve(spec.Query)
	if err != nil {
		return nil, nil, npmErr(err)
	}
	return doc, v, nil
}

// fetchNpm downloads v's tarball into the store's private folder and checks its sha512
// integrity (and, when pin is set, that it is the pinned one) before returning it: nothing
// is unpacked from a file that failed.
func fetchNpm(ctx context.Context, s *plugins.Store, reg *npmreg.Registry, spec npmreg.Spec, v *npmreg.Version, pin string) (*npmFetched, error) {
	if pin != "" && pin != v.Dist.Integrity {
		want, err1 := npmreg.ParseIntegrity(pin)
		got, err2 := npmreg.ParseIntegrity(v.Dist.Integrity)
		if err1 != nil || err2 != nil || want.String() != got.String() {
			return nil, exitf(ExitDenied, "npm:%s@%s: the registry gives integrity %q, the lock or --integrity pins %q; refusing other bytes under the same version", v.Name, v.Version, v.Dist.Integrity, pin)
		}
	}
	if err := os.MkdirAll(s.Layout().TmpDir(), 0o700); err != nil {
		return nil, &ExitError{Code: ExitInternal, Err: err}
	}
	dir, err := os.MkdirTemp(s.Layout().TmpDir(), "download-*")
	if err != nil {
		return nil, &ExitError{Code: ExitInternal, Err: err}
	}
	cleanup := func() { os.RemoveAll(dir) }
	p := filepath.Join(dir, "package.tgz")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		cleanup()
		return nil, &ExitError{Code: ExitInternal, Err: err}
	}
	_, derr := reg.Download(ctx, v, f)
	if cerr := f.Close(); derr == nil {
		derr = cerr
	}
	if derr != nil {
		cleanup()
		return nil, npmErr(derr)
	}
	sri, _ := npmreg.ParseIntegrity(v.Dist.Integrity)
	o := &plugins.Origin{Type: plugins.OriginNpm, Name: v.Name, Version: v.Version, Query: spec.Query,
		Registry: reg.URL(), Tarball: v.Dist.Tarball, Integrity: sri.String(), Deprecated: string(v.Deprecated)}
	return &npmFetched{Path: p, Version: v, Origin: o, cleanup: cleanup}, nil
}

// npmErr maps a registry or download error to its exit status: a refused download
// (integrity, a redirect or address egress refuses, a size cap) is invalid input, a query
// no version matches too, a deadline a timeout and an unreachable registry unavailable.
func npmErr(err error) error {
	switch {
	case errors.Is(err, errdefs.ErrRefused), errors.Is(err, errdefs.ErrTooLarge), errors.Is(err, errdefs.ErrInvalidInput):
		return &ExitError{Code: ExitInvalid, Err: err}
	case errors.Is(err, errdefs.ErrTimeout):
		return &ExitError{Code: ExitTimeout, Err: err}
	default:
		return &ExitError{Code: ExitUnavailable, Err: err}
	}
}

// installNpm installs npm:<name>[@query]: resolve, download, check integrity (the
// registry's, and pin when set), then the same install a local tarball gets.
func installNpm(ctx context.Context, s *plugins.Store, cfg *config.Config, src, pin string) (*plugins.InstallResult, *plugins.Origin, error) {
	spec, err := npmreg.ParseSpec(src)
	if err != nil {
		return nil, nil, exitf(ExitUsage, "%w", err)
	}
	reg, err := openRegistry(cfg)
	if err != nil {
		return nil, nil, err
	}
	defer reg.Close()
	_, v, err := resolveNpm(ctx, reg, spec)
	if err != nil {
		return nil, nil, err
	}
	return installVersion(ctx, s, reg, spec, v, pin, "")
}

func installVersion(ctx context.Context, s *plugins.Store, reg *npmreg.Registry, spec npmreg.Spec, v *npmreg.Version, pin, closure string) (*plugins.InstallResult, *plugins.Origin, error) {
	got, err := fetchNpm(ctx, s, reg, spec, v, pin)
	if err != nil {
		return nil, nil, err
	}
	defer got.Close()
	label := "npm:" + v.Name + "@" + v.Version
	res, err := s.InstallWith(got.Path, plugins.InstallOptions{Origin: got.Origin, Label: label, Closure: closure})
	if err != nil {
		return nil, nil, pluginErr(err)
	}
	return res, got.Origin, nil
}
