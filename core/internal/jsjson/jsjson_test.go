package jsjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

var update = flag.Bool("update", false, "rewrite testdata/corpus.json's outputs with what Node answers")

// corpusFile holds JSON texts and what JSON.stringify(JSON.parse(text)) gives in Node.
var corpusFile = filepath.Join("testdata", "corpus.json")

type corpusCase struct {
	In  string `json:"in"`
	Out string `json:"out"`
}

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	b, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	var cs []corpusCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) < 40 {
		t.Fatalf("the corpus holds %d cases", len(cs))
	}
	return cs
}

// TestReencodeCorpus checks Reencode against the golden outputs.
func TestReencodeCorpus(t *testing.T) {
	for _, c := range readCorpus(t) {
		got, err := Reencode([]byte(c.In))
		if err != nil {
			t.Errorf("%s: %v", c.In, err)
			continue
		}
		if string(got) != c.Out {
			t.Errorf("%s:\n got  %s\n want %s", c.In, got, c.Out)
		}
	}
}

// nodeRoundTrip reads a JSON array of JSON texts on stdin and writes, one a line, each
// text through JSON.parse and JSON.stringify (or "!" when JSON.parse refuses it), each line
// itself JSON-encoded so that a U+2028 or a newline cannot split it.
const nodeRoundTrip = `
const docs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(docs.map(d => { try { return JSON.stringify(JSON.stringify(JSON.parse(d))); } catch { return '"!"'; } }).join('\n'));
`

func runNode(t *testing.T, docs []string) []string {
	t.Helper()
	node := testenv.Node(t) // fails under CI when Node is missing
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node.Path, "-e", nodeRoundTrip)
	cmd.Env = append(os.Environ(), testenv.MarkerEnv+"="+testenv.Marker())
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) != len(docs) {
		t.Fatalf("node answered %d lines for %d documents", len(lines), len(docs))
	}
	res := make([]string, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &res[i]); err != nil {
			t.Fatalf("node line %q: %v", l, err)
		}
	}
	return res
}

// TestCorpusMatchesNode runs a real Node over the corpus: the golden outputs are what
// JSON.stringify(JSON.parse(x)) gives. With -update it rewrites them from Node's answers.
func TestCorpusMatchesNode(t *testing.T) {
	cs := readCorpus(t)
	docs := make([]string, len(cs))
	for i, c := range cs {
		docs[i] = c.In
	}
	want := runNode(t, docs)
	if *update {
		for i := range cs {
			cs[i].Out = want[i]
		}
		b, err := json.MarshalIndent(cs, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(corpusFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, c := range cs {
		if want[i] != c.Out {
			t.Errorf("%s: the corpus says %s, node %s (go test -run TestCorpusMatchesNode -update rewrites it)", c.In, c.Out, want[i])
		}
	}
}

// TestReencodeAgreesWithNode compares random documents, written with random escapes,
// spacing and repeated names, and the texts JSON.parse refuses, with Node.
func TestReencodeAgreesWithNode(t *testing.T) {
	rng := rand.New(rand.NewPCG(2028, 2029))
	var docs []string
	for range 2000 {
		docs = append(docs, randomDoc(rng, 4))
	}
	docs = append(docs, refused...)
	want := runNode(t, docs)
	for i, d := range docs {
		got, err := Reencode([]byte(d))
		switch {
		case want[i] == "!" && err == nil:
			t.Errorf("%q: Reencode gave %s, node refuses it", d, got)
		case want[i] == "!":
		case err != nil:
			t.Errorf("%q: %v, node gives %s", d, err, want[i])
		case string(got) != want[i]:
			t.Errorf("%q:\n go   %s\n node %s", d, got, want[i])
		}
	}
}

// refused are texts JSON.parse refuses.
var refused = []string{`{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `[1 2]`, `tru`, `nulls`, `"abc`, `"abc\`,
	`"\u12"`, `"\uZZZZ"`, `-`, `-01`, `01`, `1e`, `1e+`, `.5`, `+1`, ` `, ``, `{"a":[}`, `{"a":"\x"}`, "\"tab\there\"",
	"\"nl\nhere\"", `NaN`, `Infinity`, `'single'`, `{"a":1}{}`, "\v1", "\u00a01", `[1]]`, `0x10`}

func TestReencodeRefuses(t *testing.T) {
	for _, s := range refused {
		if got, err := Reencode([]byte(s)); !errors.Is(err, ErrNotJSON) {
			t.Errorf("%q: %s, %v; want ErrNotJSON", s, got, err)
		}
	}
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if _, err := Reencode([]byte(deep)); err != nil {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
	if _, err := Reencode([]byte("[" + deep + "]")); !errors.Is(err, ErrNotJSON) {
		t.Errorf("depth %d: %v, want ErrNotJSON", MaxDepth+1, err)
	}
}

// TestReencodeInvalidUTF8 reads a byte that is not UTF-8 as U+FFFD, as a UTF-8 decoder
// does before JSON.parse sees the text.
func TestReencodeInvalidUTF8(t *testing.T) {
	got, err := Reencode([]byte("{\"a\":\"x\xffy\xc3\"}"))
	if err != nil || string(got) != "{\"a\":\"x\uFFFDy\uFFFD\"}" {
		t.Errorf("%q, %v", got, err)
	}
}

// FuzzReencode: whatever encoding/json accepts Reencode accepts, its output is valid JSON
// that Reencode leaves as it is, and it holds the same value as the input when no name
// repeats.
func FuzzReencode(f *testing.F) {
	for _, s := range []string{`{"b":1,"2":[1e21,-0,"\u002e"],"b":2}`, `"\ud800\u2028"`, `[1e400,5e-324]`, `{"4294967294":1,"4294967295":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Reencode(in)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q gave invalid JSON %q", in, out)
		}
		again, err := Reencode(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("%q: Reencode(%q) = %q, %v", in, out, again, err)
		}
	})
}

// randomDoc writes a random JSON text: names that are array indices or not, repeated
// names, strings with \u escapes of every kind, numbers of every shape, random spacing.
func randomDoc(rng *rand.Rand, depth int) string {
	sp := func() string { return []string{"", "", " ", "\n", "\t ", "\r\n"}[rng.IntN(6)] }
	switch k := rng.IntN(8); {
	case depth > 0 && k == 0:
		n := rng.IntN(5)
		var parts []string
		for range n {
			parts = append(parts, sp()+randomDoc(rng, depth-1)+sp())
		}
		return "[" + strings.Join(parts, ",") + "]"
	case depth > 0 && k <= 2:
		n := rng.IntN(6)
		var parts []string
		var names []string
		for range n {
			name := randomName(rng)
			if len(names) > 0 && rng.IntN(5) == 0 {
				name = names[rng.IntN(len(names))] // a repeated name
			}
			names = append(names, name)
			parts = append(parts, sp()+name+sp()+":"+sp()+randomDoc(rng, depth-1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case k <= 4:
		return randomString(rng)
	case k <= 6:
		return randomNumber(rng)
	}
	return []string{"true", "false", "null"}[rng.IntN(3)]
}

func randomName(rng *rand.Rand) string {
	switch rng.IntN(4) {
	case 0:
		return `"` + strconv.Itoa(rng.IntN(20)) + `"`
	case 1:
		return []string{`"4294967294"`, `"4294967295"`, `"01"`, `"-1"`, `"1.0"`, `"\u0031"`, `"__proto__"`, `""`}[rng.IntN(8)]
	}
	return randomString(rng)
}

func randomString(rng *rand.Rand) string {
	pieces := []string{"a", "b", ".env", "rm -rf", `\u002e`, `\u0066`, `\"`, `\\`, `\/`, `\n`, `\t`, `\u0000`, `\u001f`,
		`\u007f`, `\u2028`, "\u2028", "\u2029", `\ud83d\ude00`, "😀", `\ud800`, `\udfff`, `\uDBFF\uDFFF`, "é", `\u00e9`, " "}
	var b strings.Builder
	b.WriteByte('"')
	for range rng.IntN(6) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	b.WriteByte('"')
	return b.String()
}

func randomNumber(rng *rand.Rand) string {
	switch rng.IntN(6) {
	case 0:
		return strconv.Itoa(rng.IntN(2000) - 1000)
	case 1:
		return strconv.FormatFloat(rng.NormFloat64()*1e10, 'g', -1, 64)
	case 2:
		return []string{"-0", "0.0", "-0.0", "1e21", "1e-7", "1E+2", "9007199254740993", "1e400", "-1e400", "1e-400", "5e-324", "123456789012345678901234567890"}[rng.IntN(12)]
	case 3:
		return strconv.Itoa(rng.IntN(9)+1) + "." + strconv.Itoa(rng.IntN(1000)) + "e" + strconv.Itoa(rng.IntN(60)-30)
	case 4:
		return strconv.FormatFloat(float64(rng.Int64N(1<<53))*1e-6, 'f', -1, 64)
	}
	return strconv.FormatUint(rng.Uint64(), 10)
}
