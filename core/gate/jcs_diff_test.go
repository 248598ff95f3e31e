package gate

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// sameAsOracle checks Canonicalize against the tree-building canonicalizer it replaced:
// the same output, and an error exactly when the oracle refuses.
func sameAsOracle(t *testing.T, in []byte) {
	t.Helper()
	got, err := Canonicalize(in)
	want, wantErr := oracleCanonicalize(in)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: err %v, oracle err %v", in, err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%q:\n got    %s\n oracle %s", in, got, want)
	}
	if checkErr := checkCanonicalizable(in); (checkErr != nil) != (wantErr != nil) {
		t.Fatalf("%q: checkCanonicalizable err %v, oracle err %v", in, checkErr, wantErr)
	}
}

func TestCanonicalizeMatchesOracle(t *testing.T) {
	fixed := []string{
		`{"b":1,"a":2,"b":3}`, `{"a":1,"b":2,"a":3}`, `{"\u0061":1,"a":2}`, `{"a\n":1,"a":2,"a\u000a":3}`,
		`{"\ud83d\ude00":1,"\uffff":2,"\ue000":3,"\ud800\udc00":4}`, `{"😀":1,"":2,"\u0000":3}`,
		`[-0, -0.0, 0, 1, -1, 123456789012345, 1234567890123456, -123456789012345, 1e0, 10E-1]`,
		`[9007199254740993, 1e21, 1e-7, 0.1, 5e-324, 1.7976931348623157e308]`,
		`{"z":{"y":{"x":[{"b":[],"a":{}}]}},"a":[{"d":1,"c":2}]}`,
		`"a\"b\\c\/d\b\f\n\r\t\u0001\u001f\u007f\u2028\u2029"`, "\"\u2028\u2029\x7f\"",
		`{"a":"\ud83d"}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `[1 2]`, `tru`, `nulls`, `"abc`, `"abc\`,
		`"\u12"`, `"\uZZZZ"`, `-`, `-01`, `1e`, `1e+`, `.5`, ` `, `{"a":[}`, `{"a":"\x"}`,
		strings.Repeat(`{"a":`, 64) + `1` + strings.Repeat(`}`, 64),
		strings.Repeat(`{"a":`, 65) + `1` + strings.Repeat(`}`, 65),
	}
	for _, s := range fixed {
		sameAsOracle(t, []byte(s))
	}
	rng := rand.New(rand.NewPCG(8785, 2))
	for range 20000 {
		doc := randomDoc(rng, 4)
		sameAsOracle(t, []byte(doc))
		// Escape some names and strings differently, duplicate a member, or cut the text.
		switch rng.IntN(4) {
		case 0:
			sameAsOracle(t, []byte(strings.ReplaceAll(doc, "a", `\u0061`)))
		case 1:
			sameAsOracle(t, []byte(strings.Replace(doc, `{`, `{"a":1,"a":2,`, 1)))
		case 2:
			if len(doc) > 1 {
				sameAsOracle(t, []byte(doc[:rng.IntN(len(doc))]))
			}
		default:
			sameAsOracle(t, []byte(strings.ReplaceAll(doc, ",", " ,\n\t")))
		}
	}
}

func FuzzCanonicalizeMatchesOracle(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.5,"x",null]}`, `{"\ud83d\ude00":1,"\uffff":2}`, `-0`, `"\u2028\n"`, `{"a":1,"a":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { sameAsOracle(t, in) })
}
