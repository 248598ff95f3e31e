package npmreg

import (
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"hash"
	"strings"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// ErrIntegrity is a tarball whose bytes do not match the integrity the document gives, or a
// version whose document gives no sha512 integrity.
var ErrIntegrity = errdefs.New(errdefs.ErrRefused, "integrity check failed")

// Integrity is a subresource-integrity string's sha512 digest ("sha512-<base64>").
type Integrity struct {
	sum []byte
}

// ParseIntegrity takes the sha512 member of an integrity string, which may list several
// hashes separated by spaces. A string with no sha512 member is refused: sha1 shasums are
// not accepted as a pin.
func ParseIntegrity(s string) (Integrity, error) {
	for _, f := range strings.Fields(s) {
		alg, val, ok := strings.Cut(f, "-")
		if !ok || alg != "sha512" {
			continue
		}
		if i := strings.IndexByte(val, '?'); i >= 0 {
			val = val[:i] // SRI options
		}
		sum, err := base64.StdEncoding.DecodeString(val)
		if err != nil || len(sum) != sha512.Size {
			return Integrity{}, fmt.Errorf("%w: %q is not a sha512 digest in base64", ErrIntegrity, f)
		}
		return Integrity{sum: sum}, nil
	}
	return Integrity{}, fmt.Errorf("%w: no sha512 integrity (%q)", ErrIntegrity, s)
}

// String is the canonical "sha512-<base64>" form.
func (i Integrity) String() string { return "sha512-" + base64.StdEncoding.EncodeToString(i.sum) }

// IsZero reports an Integrity that was never parsed.
func (i Integrity) IsZero() bool { return len(i.sum) == 0 }

// NewHash returns the hash the digest is checked with.
func NewHash() hash.Hash { return sha512.New() }

// Check compares a computed sha512 digest with i.
func (i Integrity) Check(sum []byte) error {
	if subtle.ConstantTimeCompare(sum, i.sum) != 1 {
		got := Integrity{sum: sum}
		return fmt.Errorf("%w: the tarball is %s, the registry's document says %s", ErrIntegrity, got, i)
	}
	return nil
}
