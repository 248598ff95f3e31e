package npmreg

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// MaxDocumentBytes caps a package document. npm's largest documents are a few tens of MiB in
// full form; the abbreviated form asked for is far smaller.
const MaxDocumentBytes = 32 << 20

// ErrBadDocument is matched by every error of [ParseDocument].
var ErrBadDocument = errdefs.New(errdefs.ErrInvalidInput, "not a package document")

// Document is the part of a registry's package document cwx reads.
type Document struct {
	Name     string              `json:"name"`
	DistTags map[string]string   `json:"dist-tags"`
	Versions map[string]*Version `json:"versions"`
}

// Version is one published version.
type Version struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Deprecated is the publisher's message; the registry also writes it as false or "".
	Deprecated Deprecation `json:"deprecated"`
	Dist       struct {
		Tarball   string `json:"tarball"`
		Integrity string `json:"integrity"`
	} `json:"dist"`
	HasInstallScript bool `json:"hasInstallScript"`
}

// Deprecation is a deprecated field: a message, or false.
type Deprecation string

// UnmarshalJSON takes a string or a boolean (true without a message says "deprecated").
func (d *Deprecation) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*d = Deprecation(s)
		return nil
	}
	var v bool
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("deprecated is neither a string nor a boolean")
	}
	*d = ""
	if v {
		*d = "deprecated"
	}
	return nil
}

// ParseDocument decodes a package document for name and checks what install relies on:
// the name matches and each version's key is its version. A dist-tag that names no
// published version is dropped. A version without a sha512 integrity is kept (ResolveQuery refuses
// to install it, naming it).
func ParseDocument(name string, data []byte) (*Document, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("%w for %s: over %d bytes", ErrBadDocument, name, MaxDocumentBytes)
	}
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%w for %s: %v", ErrBadDocument, name, err)
	}
	if d.Name != name {
		return nil, fmt.Errorf("%w: asked for %s, the registry answered with %q", ErrBadDocument, name, d.Name)
	}
	for k, v := range d.Versions {
		if v == nil || v.Version != k || (v.Name != "" && v.Name != name) {
			return nil, fmt.Errorf("%w for %s: version %q is not described as itself", ErrBadDocument, name, k)
		}
		if strings.ContainsAny(k, " \t\n\x00") {
			return nil, fmt.Errorf("%w for %s: version %q", ErrBadDocument, name, k)
		}
	}
	for tag, v := range d.DistTags {
		if _, ok := d.Versions[v]; !ok {
			delete(d.DistTags, tag) // a tag left on an unpublished version names nothing to install
		}
	}
	return &d, nil
}

// Deprecated is version's deprecation message, "" when it is not deprecated or not published.
func (d *Document) Deprecated(version string) string {
	if v := d.Versions[version]; v != nil {
		return string(v.Deprecated)
	}
	return ""
}
