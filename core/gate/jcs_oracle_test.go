package gate

// An RFC 8785 canonicalizer built a different way from jcs.go, as the oracle of the
// differential tests of Canonicalize. It shares no code with jcs.go, nor its approach:
// encoding/json validates the text and decodes it token by token, a lexical pass finds
// lone surrogates, numbers are written from strconv's fixed and exponent forms chosen by
// magnitude, and strings rune by rune from a table of JSON.stringify's escapes. A bug in
// jcs.go has to be made a second time, differently, to hide here.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// errOracleRefuses is the oracle's only error: the tests compare whether both refuse, not
// how they word it.
var errOracleRefuses = errors.New("oracle: no RFC 8785 form")

// oracleMaxDepth is the nesting bound, restated rather than shared so that a change to
// maxDepth shows up as a disagreement.
const oracleMaxDepth = 64

// oracleCanonicalize returns the RFC 8785 form of data or errOracleRefuses: for text that
// is not one JSON value (RFC 8259), is not UTF-8, holds a lone surrogate escape, repeats a
// member name, has a number outside the double range or nests deeper than oracleMaxDepth.
func oracleCanonicalize(data []byte) ([]byte, error) {
	if !utf8.Valid(data) || !json.Valid(data) || hasLoneSurrogate(data) {
		return nil, errOracleRefuses
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	s, err := oracleValue(dec, 0)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// oracleValue writes the next value of dec, nested depth containers deep.
func oracleValue(dec *json.Decoder, depth int) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("%w: %v", errOracleRefuses, err)
	}
	switch v := tok.(type) {
	case json.Delim:
		if depth+1 > oracleMaxDepth {
			return "", errOracleRefuses
		}
		if v == '[' {
			return oracleArray(dec, depth+1)
		}
		return oracleObject(dec, depth+1)
	case string:
		return oracleString(v), nil
	case json.Number:
		return oracleNumber(string(v))
	case bool:
		return strconv.FormatBool(v), nil
	case nil:
		return "null", nil
	}
	return "", fmt.Errorf("%w: token %T", errOracleRefuses, tok)
}

func oracleArray(dec *json.Decoder, depth int) (string, error) {
	var elems []string
	for dec.More() {
		s, err := oracleValue(dec, depth)
		if err != nil {
			return "", err
		}
		elems = append(elems, s)
	}
	if _, err := dec.Token(); err != nil { // ]
		return "", fmt.Errorf("%w: %v", errOracleRefuses, err)
	}
	return "[" + strings.Join(elems, ",") + "]", nil
}

// oracleObject writes an object's members sorted by their names' UTF-16 code units.
func oracleObject(dec *json.Decoder, depth int) (string, error) {
	type member struct {
		units []uint16
		text  string // "name":value
	}
	var ms []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("%w: %v", errOracleRefuses, err)
		}
		name := tok.(string) // json.Valid passed: a member starts with its name
		if seen[name] {
			return "", errOracleRefuses
		}
		seen[name] = true
		val, err := oracleValue(dec, depth)
		if err != nil {
			return "", err
		}
		ms = append(ms, member{utf16.Encode([]rune(name)), oracleString(name) + ":" + val})
	}
	if _, err := dec.Token(); err != nil { // }
		return "", fmt.Errorf("%w: %v", errOracleRefuses, err)
	}
	slices.SortFunc(ms, func(a, b member) int { return slices.Compare(a.units, b.units) })
	texts := make([]string, len(ms))
	for i, m := range ms {
		texts[i] = m.text
	}
	return "{" + strings.Join(texts, ",") + "}", nil
}

// oracleNumber writes a JSON number as ECMAScript's Number.prototype.toString does: the
// plain decimal form from 1e-6 up to (not including) 1e21, the exponent form with an
// explicit sign outside it, and 0 for both zeros.
func oracleNumber(lit string) (string, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", errOracleRefuses
	}
	if f == 0 {
		return "0", nil
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	sign, digits := exp[:1], strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + digits, nil
}

// stringifyEscapes are the characters JSON.stringify writes as a two-character escape.
var stringifyEscapes = map[rune]string{
	'"': `\"`, '\\': `\\`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`,
}

// oracleString writes s as JSON.stringify does: the escapes above, other control
// characters as \u00xx in lower case, everything else as it is.
func oracleString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if e, ok := stringifyEscapes[r]; ok {
			b.WriteString(e)
		} else if r < 0x20 {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hasLoneSurrogate reports whether a \u escape in valid JSON text names half of a
// surrogate pair without the other half right after it (encoding/json would quietly turn
// it into U+FFFD).
func hasLoneSurrogate(data []byte) bool {
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && data[i+1] == 'u':
			r := hex4At(data, i+2)
			switch {
			case utf16.IsSurrogate(r) && r < 0xdc00:
				if !bytes.HasPrefix(data[i+6:], []byte(`\u`)) {
					return true
				}
				if low := hex4At(data, i+8); low < 0xdc00 || low > 0xdfff {
					return true
				}
				i += 11
			case utf16.IsSurrogate(r):
				return true
			default:
				i += 5
			}
		case c == '\\':
			i++ // a one-character escape
		}
	}
	return false
}

// hex4At decodes the four hex digits at data[i:]; valid JSON text guarantees them.
func hex4At(data []byte, i int) rune {
	v, _ := strconv.ParseUint(string(data[i:i+4]), 16, 32)
	return rune(v)
}
