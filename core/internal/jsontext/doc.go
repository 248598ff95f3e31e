// Package jsontext holds the low-level JSON text routines that cwx's three one-pass JSON
// readers share: the protocol's validating scanner (core/protocol), the registry's tool
// input decoder (core/registry) and the gate's RFC 8785 canonicalizer (core/gate).
//
// Each routine works on bytes and positions only and reports failure as a value, never as
// an error: every reader words its own messages and reports its own byte offsets, and
// decides its own policy where the three differ (a lone UTF-16 surrogate is an error for
// the protocol and the gate but becomes U+FFFD in the registry, as in encoding/json).
//
// The routines are small enough to stay cheap on the protocol's hot path: Hex4 and
// HasControl inline into their callers, and nothing here allocates.
package jsontext
