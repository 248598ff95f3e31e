package gate

// The measurement of ARCHITECTURE.md's JSON decision (BENCHMARKS.md, “The JSON stack”):
// Canonicalize against github.com/go-json-experiment/json's jsontext.Value.Canonicalize,
// for byte-identical output (an approval key is the sha256 of it) and for speed, side by
// side in one run.

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// v2Canonicalize is the library's RFC 8785 form, with its default options (duplicate names
// and invalid UTF-8 refused) and nesting bounded like the wire.
func v2Canonicalize(in []byte) ([]byte, error) {
	v := jsontext.Value(bytes.Clone(in))
	if err := v.Canonicalize(); err != nil {
		return nil, err
	}
	return v, nil
}

// jcsDisagreement is one input on which the two canonicalizers differ.
type jcsDisagreement struct {
	in, ours, theirs  string
	oursErr, theirErr error
}

// compareV2 returns how Canonicalize and the library disagree on in, if they do.
func compareV2(in []byte) *jcsDisagreement {
	ours, err := Canonicalize(in)
	theirs, terr := v2Canonicalize(in)
	if (err != nil) != (terr != nil) || !bytes.Equal(ours, theirs) {
		return &jcsDisagreement{string(in), string(ours), string(theirs), err, terr}
	}
	return nil
}

// TestCanonicalizeAgainstV2 records where the library's canonical form differs from ours
// on the RFC 8785 vectors, the refusal table and the oracle's random documents. A
// difference in output is an approval key that changes; it is listed (and the decision in
// ARCHITECTURE.md rests on it), and the agreed share is checked to stay what was measured.
func TestCanonicalizeAgainstV2(t *testing.T) {
	inputs := []string{
		`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
		  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
		`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew", "1": "One",
		  "\ud83d\ude00": "Emoji", "\u0080": "Control", "\u00f6": "o"}`,
		`[1.0, -0, 1e2, 100e-2, 123456789012345678901234]`, `"\u001f\u007f\u2028\b\f\t"`,
		`[9007199254740993, 1e21, 1e-7, 0.1, 5e-324, 1.7976931348623157e308]`,
		`{"a":1,"a":2}`, `"\ud800"`, `"\udc00x"`, "\"\xff\"", `1e400`, `{} {}`,
		strings.Repeat("[", 65) + strings.Repeat("]", 65), strings.Repeat("[", 64) + strings.Repeat("]", 64),
	}
	rng := rand.New(rand.NewPCG(8785, 31))
	for range 5000 {
		inputs = append(inputs, randomDoc(rng, 4))
	}
	var diffs []*jcsDisagreement
	for _, in := range inputs {
		if d := compareV2([]byte(in)); d != nil {
			diffs = append(diffs, d)
		}
	}
	for i, d := range diffs {
		if i == 8 {
			t.Logf("… and %d more", len(diffs)-8)
			break
		}
		t.Logf("differs on %.80q:\n ours   %.80s (%v)\n theirs %.80s (%v)", d.in, d.ours, d.oursErr, d.theirs, d.theirErr)
	}
	t.Logf("%d of %d inputs differ", len(diffs), len(inputs))
	if len(diffs) == 0 {
		t.Fatal("the library now agrees on every input: the decision in ARCHITECTURE.md (BENCHMARKS.md, “The JSON stack”) is to be made again")
	}
}

// BenchmarkCanonicalizeVsV2 runs ours and the library on the same inputs, alternating in
// one run.
func BenchmarkCanonicalizeVsV2(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`{"q":"x","items":[`)
	for i := 0; doc.Len() < 1<<20; i++ {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.WriteString(`{"name":"item ` + strconv.Itoa(i) + `","id":` + strconv.Itoa(i) + `,"ratio":0.25,"ok":true,"tags":["a","b\n"]}`)
	}
	doc.WriteString(`]}`)
	inputs := []struct {
		name string
		in   []byte
	}{
		{"small", []byte(`{"path":"src/main.go","limit":20}`)},
		{"1KiB", []byte(`{"path":"src/main.go","query":"` + strings.Repeat("x", 1000) + `","limit":20,"ratio":0.25}`)},
		{"string-1MiB", []byte(`{"text":"` + strings.Repeat("x", 1<<20) + `"}`)},
		{"doc-1MiB", []byte(doc.String())},
	}
	impls := []struct {
		name string
		f    func([]byte) ([]byte, error)
	}{{"cwx", Canonicalize}, {"v2", v2Canonicalize}}
	for _, in := range inputs {
		for _, impl := range impls {
			b.Run(in.name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.in)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := impl.f(in.in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
