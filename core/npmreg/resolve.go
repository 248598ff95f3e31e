package npmreg

import (
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// ErrNoMatch is a query no published version satisfies.
var ErrNoMatch = errdefs.New(errdefs.ErrInvalidInput, "no published version matches")

// Resolve picks the version a query names, the way npm picks one:
//
//   - an exact version published under that string;
//   - a dist-tag ("latest", "next");
//   - a range: the latest dist-tag when it satisfies the range, else the highest
//     satisfying version that is not deprecated, else the highest deprecated one.
//     Prereleases match only a range that names a prerelease of the same version.
func (d *Document) Resolve(query string) (*Version, error) {
	if v, ok := d.Versions[query]; ok {
		return v, nil
	}
	if tv, ok := d.DistTags[query]; ok {
		return d.Versions[tv], nil
	}
	if query == "latest" {
		// No latest dist-tag: the highest version that is not a prerelease.
		if v := d.Latest(); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("%w: %s has no latest dist-tag and no release", ErrNoMatch, d.Name)
	}
	if sv, err := semver.StrictNewVersion(query); err == nil {
		// "1.2.3" not published under that spelling: match "v1.2.3" or "1.2.3+build".
		for _, v := range d.sorted() {
			if v.sv.Equal(sv) {
				return v.v, nil
			}
		}
		return nil, fmt.Errorf("%w: %s@%s is not published", ErrNoMatch, d.Name, query)
	}
	c, err := semver.NewConstraint(query)
	if err != nil {
		return nil, fmt.Errorf("%w: %s@%s is neither a published version, a dist-tag nor a semver range (%v)", ErrNoMatch, d.Name, query, err)
	}
	if tv, ok := d.DistTags["latest"]; ok {
		if sv, err := semver.NewVersion(tv); err == nil && c.Check(sv) {
			return d.Versions[tv], nil
		}
	}
	var deprecated *Version
	for _, v := range slices.Backward(d.sorted()) {
		if !c.Check(v.sv) {
			continue
		}
		if v.v.Deprecated == "" {
			return v.v, nil
		}
		if deprecated == nil {
			deprecated = v.v
		}
	}
	if deprecated != nil {
		return deprecated, nil
	}
	return nil, fmt.Errorf("%w: no version of %s satisfies %s", ErrNoMatch, d.Name, query)
}

// Latest is the version the latest dist-tag names, or else the highest non-prerelease.
func (d *Document) Latest() *Version {
	if tv, ok := d.DistTags["latest"]; ok {
		return d.Versions[tv]
	}
	for _, v := range slices.Backward(d.sorted()) {
		if v.sv.Prerelease() == "" {
			return v.v
		}
	}
	return nil
}

type parsed struct {
	sv *semver.Version
	v  *Version
}

// sorted is the published versions that parse as semver, lowest first.
func (d *Document) sorted() []parsed {
	out := make([]parsed, 0, len(d.Versions))
	for k, v := range d.Versions {
		if sv, err := semver.NewVersion(k); err == nil {
			out = append(out, parsed{sv, v})
		}
	}
	slices.SortFunc(out, func(a, b parsed) int { return a.sv.Compare(b.sv) })
	return out
}

// Newer is every published version higher than current, highest first.
func (d *Document) Newer(current string) []*Version {
	cur, err := semver.NewVersion(current)
	if err != nil {
		return nil
	}
	var out []*Version
	for _, v := range slices.Backward(d.sorted()) {
		if v.sv.GreaterThan(cur) {
			out = append(out, v.v)
		}
	}
	return out
}
