package npmreg

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
)

// DefaultRegistry is the registry npm's documentation gives as the default of its registry
// setting. It is assembled from its labels so that the one place it is spelled is here.
var DefaultRegistry = "https://" + strings.Join([]string{"registry", "npmjs", "org"}, ".") + "/"

// Limits of a download.
const (
	MaxTarballBytes = 64 << 20
	Timeout         = 2 * time.Minute
)

// ErrRegistry is a registry that answered with something other than the document or the
// tarball asked for.
var ErrRegistry = errdefs.New(errdefs.ErrNotAvailable, "the registry did not answer as expected")

// Where the registry URL came from.
const (
	FromConfig  = "config.toml [install] npm_registry"
	FromNpmrc   = "~/.npmrc registry="
	FromDefault = "npm's default registry"
)

// Choose picks the registry: configured (config.toml), else the registry= line of the npmrc
// file at npmrc (if it exists), else DefaultRegistry. It returns the URL and where it came
// from.
func Choose(configured, npmrc string) (string, string, error) {
	if configured != "" {
		return configured, FromConfig, nil
	}
	if npmrc != "" {
		r, err := readNpmrc(npmrc)
		if err != nil {
			return "", "", err
		}
		if r != "" {
			return r, FromNpmrc, nil
		}
	}
	return DefaultRegistry, FromDefault, nil
}

// readNpmrc returns the value of its top-level registry= line, "" when there is none.
func readNpmrc(p string) (string, error) {
	data, err := boundedfile.Read(p, 1<<20, true)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	var reg string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "registry" {
			continue
		}
		reg = strings.Trim(strings.TrimSpace(v), `"'`)
		if strings.Contains(reg, "${") {
			return "", fmt.Errorf("%s: registry=%s uses an environment variable; set [install] npm_registry in config.toml instead", p, reg)
		}
	}
	return reg, nil
}

// Registry reads package documents and tarballs from one registry origin, through
// core/egress: no redirect leaves that origin, tarballs must be on it, and the private
// ranges are reachable only when the user configured a literal address or localhost.
type Registry struct {
	base   *url.URL
	origin egress.Origin
	from   string
	docs   *egress.Client
	tars   *egress.Client
}

// Open returns a registry client for rawURL; from is where the URL came from (one of the
// From… constants), which decides whether a loopback or private registry is allowed.
func Open(rawURL, from string) (*Registry, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("registry %q (%s): %w", rawURL, from, err)
	}
	o, err := egress.OriginOf(u)
	if err != nil {
		return nil, fmt.Errorf("registry (%s): %w", from, err)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("registry %q (%s): a registry URL has no query or fragment", rawURL, from)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		u.RawPath = ""
	}
	// A name or address the user wrote themselves may be a local one; npm's default may not.
	userLocal := from != FromDefault && (o.IsLiteral() || o.Host == "localhost")
	allow := func(_, to egress.Origin) error {
		if to != o {
			return fmt.Errorf("%w: only the registry's own origin %s is reached", egress.ErrNotAllowed, o)
		}
		return nil
	}
	private := func(to egress.Origin) bool { return userLocal && to == o }
	r := &Registry{base: u, origin: o, from: from}
	r.docs = egress.New(egress.Policy{Allow: allow, Private: private, MaxResponseBytes: MaxDocumentBytes, Timeout: Timeout})
	r.tars = egress.New(egress.Policy{Allow: allow, Private: private, MaxResponseBytes: MaxTarballBytes, Timeout: Timeout})
	return r, nil
}

// URL is the registry's base URL.
func (r *Registry) URL() string { return r.base.String() }

// Close drops idle connections.
func (r *Registry) Close() { r.docs.Close(); r.tars.Close() }

// Document fetches and parses name's package document (the abbreviated form when the
// registry has it).
func (r *Registry) Document(ctx context.Context, name string) (*Document, error) {
	if err := ValidateName(name); err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrBadSpec, name, err)
	}
	u := r.base.String() + documentPath(name)
	resp, err := r.docs.Get(ctx, u, http.Header{"Accept": {"application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"}})
	if err != nil {
		return nil, fmt.Errorf("package document of %s from %s: %w", name, r.origin, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%w: %s is not published on %s (404)", ErrNoMatch, name, r.origin)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: package document of %s from %s: status %d", ErrRegistry, name, r.origin, resp.StatusCode)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("package document of %s from %s: %w", name, r.origin, err)
	}
	return ParseDocument(name, data)
}

// Download writes v's tarball to w, hashing it on the way, and returns nil only when the
// bytes match v's sha512 integrity. The caller must not use what w received on an error:
// the check comes after the last byte, and before anything is unpacked.
func (r *Registry) Download(ctx context.Context, v *Version, w io.Writer) (int64, error) {
	want, err := ParseIntegrity(v.Dist.Integrity)
	if err != nil {
		return 0, fmt.Errorf("%s@%s: %w (refusing to install an unpinned tarball)", v.Name, v.Version, err)
	}
	tu, err := r.base.Parse(v.Dist.Tarball)
	if err != nil || v.Dist.Tarball == "" {
		return 0, fmt.Errorf("%w: %s@%s has no usable dist.tarball", ErrRegistry, v.Name, v.Version)
	}
	if to, err := egress.OriginOf(tu); err != nil || to != r.origin {
		return 0, fmt.Errorf("%w: %s@%s's tarball is at %s, not on the registry's origin %s", egress.ErrNotAllowed, v.Name, v.Version, tu.Redacted(), r.origin)
	}
	resp, err := r.tars.Get(ctx, tu.String(), nil)
	if err != nil {
		return 0, fmt.Errorf("tarball of %s@%s: %w", v.Name, v.Version, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%w: tarball of %s@%s: status %d", ErrRegistry, v.Name, v.Version, resp.StatusCode)
	}
	h := NewHash()
	n, err := io.Copy(io.MultiWriter(w, h), resp.Body)
	if err != nil {
		return n, fmt.Errorf("tarball of %s@%s: %w", v.Name, v.Version, err)
	}
	if err := want.Check(h.Sum(nil)); err != nil {
		return n, fmt.Errorf("%s@%s: %w", v.Name, v.Version, err)
	}
	return n, nil
}
