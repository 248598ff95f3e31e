package gate

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// jsCanon is a reference canonicalizer in JavaScript: JSON.stringify for scalars (its
// number and string forms are what RFC 8785 adopts) and the default sort, which orders
// strings by UTF-16 code units.
const jsCanon = `
const canon = v => Array.isArray(v) ? '[' + v.map(canon).join(',') + ']'
  : (v !== null && typeof v === 'object')
    ? '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}'
    : JSON.stringify(v);
const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(docs.map(d => canon(JSON.parse(d))).join('\n'));
`

// TestCanonicalizeAgreesWithJavaScript checks numbers and key order against Node.
func TestCanonicalizeAgreesWithJavaScript(t *testing.T) {
	node := testenv.Node(t)
	rng := rand.New(rand.NewPCG(8785, 1))
	var docs []string
	for range 3000 {
		f := randomDouble(rng)
		docs = append(docs, strconv.FormatFloat(f, 'g', -1, 64))
	}
	for range 300 {
		docs = append(docs, randomDoc(rng, 3))
	}
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node.Path, "-e", jsCanon)
	cmd.Env = append(os.Environ(), testenv.MarkerEnv+"="+testenv.Marker())
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	want := strings.Split(string(out), "\n")
	if len(want) != len(docs) {
		t.Fatalf("node answered %d lines for %d documents", len(want), len(docs))
	}
	for i, d := range docs {
		got, err := Canonicalize([]byte(d))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if string(got) != want[i] {
			t.Errorf("%s:\n go   %s\n node %s", d, got, want[i])
		}
	}
}

func randomDouble(rng *rand.Rand) float64 {
	for {
		var f float64
		switch rng.IntN(4) {
		case 0:
			f = math.Float64frombits(rng.Uint64())
		case 1:
			f = float64(rng.Int64N(1<<53)) * math.Pow(10, float64(rng.IntN(40)-20))
		case 2:
			f = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30))
		default:
			f = float64(rng.IntN(2000000) - 1000000)
		}
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}

var keyRunes = []rune{'a', 'b', 'Z', '1', '_', 'é', 'ö', '€', '\u0080', '\r', '\ufb33', '😀', '𝄞', '\uffff', '中'}

func randomDoc(rng *rand.Rand, depth int) string {
	if depth == 0 || rng.IntN(3) == 0 {
		switch rng.IntN(4) {
		case 0:
			return strconv.FormatFloat(randomDouble(rng), 'g', -1, 64)
		case 1:
			return strconv.Quote(randomKey(rng))
		case 2:
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
				b.WriteString(",")
			}
			b.WriteString(randomDoc(rng, depth-1))
		}
		b.WriteString("]")
		return b.String()
	}
	seen := map[string]bool{}
	b.WriteString("{")
	for range rng.IntN(6) {
		k := randomKey(rng)
		if seen[k] {
			continue
		}
		if len(seen) > 0 {
			b.WriteString(",")
		}
		seen[k] = true
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteString(":")
		b.WriteString(randomDoc(rng, depth-1))
	}
	b.WriteString("}")
	return b.String()
}

func randomKey(rng *rand.Rand) string {
	r := make([]rune, 1+rng.IntN(3))
	for i := range r {
		r[i] = keyRunes[rng.IntN(len(keyRunes))]
	}
	return string(r)
}
