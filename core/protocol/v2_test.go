package protocol

// The measurement of ARCHITECTURE.md's JSON decision (BENCHMARKS.md, “The JSON stack”):
// the strict parse of a host message and the encoding of a request against
// github.com/go-json-experiment/json (the future encoding/json/v2), side by side in one run,
// and the corpus's JSON-level strictness rules checked with both.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// v2Envelope is a tool/call answer as the library decodes it, strictly: unknown members,
// duplicate names and invalid UTF-8 refused (its defaults plus RejectUnknownMembers).
type v2Envelope struct {
	JSONRPC string      `json:"jsonrpc"`
	ID      uint64      `json:"id"`
	Result  *ToolResult `json:"result"`
}

var v2Strict = jsonv2.JoinOptions(jsonv2.RejectUnknownMembers(true))

// v2Valid reports whether the library takes data as one JSON value under its defaults,
// with nesting bounded by MaxDepth as the wire's is.
func v2Valid(data []byte) bool {
	dec := jsontext.NewDecoder(strings.NewReader(string(data)))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if dec.StackDepth() > MaxDepth {
			return false
		}
		if k := tok.Kind(); dec.StackDepth() == 0 && k != '{' && k != '[' {
			break // a scalar at the top
		}
		if dec.StackDepth() == 0 {
			break
		}
	}
	_, err := dec.ReadToken()
	return err != nil && err.Error() == "EOF"
}

// TestCorpusStrictnessAgainstV2 runs every invalid case of the corpus whose refusal is about
// the JSON text itself (not the shape) through the library: each must be refused there too,
// or be listed as a rule the library does not hold.
func TestCorpusStrictnessAgainstV2(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "protocol", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	textual := []string{"duplicate", "UTF-8", "deeper", "not JSON"}
	var checked, missed int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseCase(b)
		if err != nil {
			t.Fatal(err)
		}
		if c.Valid || !containsAny(c.Error, textual) {
			continue
		}
		payload, err := c.Payload()
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if v2Valid(payload) {
			missed++
			t.Logf("%s (%s): the library takes it as JSON", filepath.Base(f), c.Error)
		}
	}
	// The rules the corpus does not spell out as frames.
	for name, text := range map[string]string{
		"BOM":             "\ufeff{}",
		"lone surrogate":  `{"a":"\ud800"}`,
		"lone low":        `{"a":"\udc00x"}`,
		"leading zero":    `{"a":01}`,
		"bare dot":        `{"a":1.}`,
		"plus sign":       `{"a":+1}`,
		"trailing data":   `{} {}`,
		"raw control":     "{\"a\":\"\x01\"}",
		"depth 65":        strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		"invalid escape":  `{"a":"\x"}`,
		"NaN":             `{"a":NaN}`,
		"trailing comma":  `{"a":1,}`,
		"single quotes":   `{'a':1}`,
		"comment":         `{"a":1 /* c */}`,
		"invalid in name": "{\"\xff\":1}",
	} {
		checked++
		_, ours := parse([]byte(text), HostToCore, TierPlugin, nil)
		if ours == nil {
			t.Errorf("%s: ParseHostMessage takes %q", name, text)
		}
		if v2Valid([]byte(text)) {
			missed++
			t.Logf("%s: the library takes %q as JSON", name, text)
		}
	}
	t.Logf("%d textual refusals checked, %d taken by the library", checked, missed)
	if checked < 15 {
		t.Fatal("too few textual refusals in the corpus")
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// BenchmarkParseVsV2 parses a tool/call answer with ParseHostMessage and with the library's
// strict Unmarshal, alternating in one run.
func BenchmarkParseVsV2(b *testing.B) {
	answers := answering(MethodToolCall)
	for _, s := range benchSizes[:2] {
		payload := toolResultPayload(s.n)
		b.Run(s.name+"/cwx", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseHostMessage(payload, TierPlugin, answers); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/v2", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				var env v2Envelope
				if err := jsonv2.Unmarshal(payload, &env, v2Strict); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// v2Request is a request as the library encodes it.
type v2Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      uint64          `json:"id"`
	Method  string          `json:"method"`
	Params  *ToolCallParams `json:"params"`
}

// BenchmarkEncodeVsV2 encodes a tool/call request with NewRequest and with the library's
// Marshal, alternating in one run.
func BenchmarkEncodeVsV2(b *testing.B) {
	for _, s := range benchSizes[:2] {
		params := benchToolCall(s.n)
		b.Run("input="+s.name+"/cwx", func(b *testing.B) {
			b.SetBytes(int64(len(params.Input)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewRequest(7, MethodToolCall, params); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("input="+s.name+"/v2", func(b *testing.B) {
			b.SetBytes(int64(len(params.Input)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonv2.Marshal(v2Request{"2.0", 7, string(MethodToolCall), params}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var _ = json.RawMessage(nil)
