package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// sameAsEncodingJSON checks decodeInput against encoding/json (a Decoder with UseNumber
// for the tree, json.Valid for what is refused), except that nesting deeper than
// MaxInputDepth is refused with errTooDeep.
func sameAsEncodingJSON(t *testing.T, in []byte) {
	t.Helper()
	got, err := decodeInput(in)
	if !json.Valid(in) {
		if err == nil {
			t.Fatalf("%q: accepted, encoding/json refuses it", in)
		}
		return
	}
	if nesting(in) > MaxInputDepth {
		if !errors.Is(err, errTooDeep) {
			t.Fatalf("%.40q…: nesting %d answered %v, want errTooDeep", in, nesting(in), err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: %v, encoding/json accepts it", in, err)
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got  %#v\n want %#v", in, got, want)
	}
}

// nesting is the deepest nesting of objects and arrays in a valid JSON text.
func nesting(in []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range in {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

func TestDecodeInputMatchesEncodingJSON(t *testing.T) {
	fixed := []string{
		`{}`, `[]`, `{"a":[]}`, `""`, `0`, `-0`, `-0.5e+10`, `1E-2`, `true`, `false`, `null`, ` {"a" : 1 } `,
		`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":null}]}}`, `"\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\"`,
		`"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`, `"\ud83d\ude00\ud83d"`,
		"\"\xff\xfe\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "{\"\xff\":1}", "\"\u2028\x7f\"",
		`{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1 2]`, `tru`, `nulls`, `"abc`, `"abc\`, `"\u12"`,
		`"\uZZZZ"`, `"\x"`, `-`, `-01`, `01`, `1.`, `.5`, `1e`, `1e+`, `+1`, ``, ` `, "\"a\x01\"", `{} {}`, `{"a":"x"} ]`,
		strings.Repeat(`[`, MaxInputDepth) + strings.Repeat(`]`, MaxInputDepth), strings.Repeat(`[`, MaxInputDepth+1) + strings.Repeat(`]`, MaxInputDepth+1),
		strings.Repeat(`{"a":`, MaxInputDepth) + `"[{"` + strings.Repeat(`}`, MaxInputDepth), strings.Repeat(`{"a":[`, 33) + strings.Repeat(`]}`, 33),
		strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001),
	}
	for _, s := range fixed {
		sameAsEncodingJSON(t, []byte(s))
	}
	rng := rand.New(rand.NewPCG(7159, 1))
	for range 20000 {
		doc := randomJSON(rng, 4)
		sameAsEncodingJSON(t, []byte(doc))
		if len(doc) > 1 {
			sameAsEncodingJSON(t, []byte(doc[:rng.IntN(len(doc))]))
		}
	}
}

var strRunes = []rune{'a', 'Z', '"', '\\', '\n', '\x01', 'é', '€', '😀', '\u2028', '\ufffd', '/'}

func randomJSON(rng *rand.Rand, depth int) string {
	if depth == 0 || rng.IntN(3) == 0 {
		switch rng.IntN(5) {
		case 0:
			return strconv.FormatFloat(rng.NormFloat64()*1e6, 'g', -1, 64)
		case 1:
			return strconv.Itoa(rng.IntN(1000) - 500)
		case 2:
			return randomString(rng)
		case 3:
			return "true"
		default:
			return "null"
		}
	}
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteString("[")
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(randomJSON(rng, depth-1))
		}
		b.WriteString("]")
		return b.String()
	}
	b.WriteString("{")
	for i := range rng.IntN(5) {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(randomString(rng) + ":" + randomJSON(rng, depth-1))
	}
	b.WriteString("}")
	return b.String()
}

// randomString is a JSON string, its runes written literally or as \u escapes.
func randomString(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('"')
	for range rng.IntN(5) {
		r := strRunes[rng.IntN(len(strRunes))]
		switch {
		case r == '"' || r == '\\' || r < 0x20 || rng.IntN(2) == 0:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, "\\u%04x", u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func FuzzDecodeInput(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",null,true]}`, `"\ud83d\ude00\ud800"`, "\"\xff\"", `-0.5e3`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { sameAsEncodingJSON(t, in) })
}
