package protocol

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The parsers must never panic, must refuse with a *ViolationError wrapping
// ErrInvalidMessage, and whatever they accept must encode again to a message they accept
// with the same identity (and re-encode to the same bytes: encoding is a fixed point).

func addCorpusSeeds(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	methods := Methods()
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		c, err := ParseCase(data)
		if err != nil {
			f.Fatalf("%s: %v", p, err)
		}
		payload, err := c.Payload()
		if err != nil {
			f.Fatal(err)
		}
		idx := 0
		for i, m := range methods {
			if m.Name == c.Answers {
				idx = i
			}
		}
		f.Add(payload, uint8(idx), c.Tier == TierBuiltin)
	}
}

// fuzzParse checks one input; strict says parse is ParseHostMessage, whose accepted
// values must also decode the same with encoding/json.
func fuzzParse(t *testing.T, parse func([]byte, Tier, AnswerLookup) (*Message, error), strict bool, payload []byte, method uint8, builtin bool) {
	tier := TierPlugin
	if builtin {
		tier = TierBuiltin
	}
	methods := Methods()
	answers := answering(methods[int(method)%len(methods)].Name)
	m, err := parse(payload, tier, answers)
	if err != nil {
		var ve *ViolationError
		if !errors.Is(err, ErrInvalidMessage) || !errors.As(err, &ve) || ve.Reason == "" || ve.Kind == nil {
			t.Fatalf("refusal is not a ViolationError with a reason: %#v", err)
		}
		return
	}
	if strict {
		sameAsEncodingJSON(t, m)
	}
	enc, err := EncodeMessage(m)
	if err != nil {
		t.Fatalf("accepted %q but cannot encode it: %v", payload, err)
	}
	again, err := parse(enc, tier, answers)
	if err != nil {
		t.Fatalf("accepted %q, re-encoded to %q, which is refused: %v", payload, enc, err)
	}
	if again.Kind != m.Kind || again.ID != m.ID || again.Method != m.Method {
		t.Fatalf("re-parse changed identity: %+v vs %+v", again, m)
	}
	enc2, err := EncodeMessage(again)
	if err != nil || !bytes.Equal(enc, enc2) {
		t.Fatalf("encoding is not a fixed point: %q then %q (%v)", enc, enc2, err)
	}
}

func FuzzParseHostMessage(f *testing.F) {
	addCorpusSeeds(f)
	f.Fuzz(func(t *testing.T, payload []byte, method uint8, builtin bool) {
		fuzzParse(t, ParseHostMessage, true, payload, method, builtin)
	})
}

func FuzzParseCoreMessage(f *testing.F) {
	addCorpusSeeds(f)
	f.Fuzz(func(t *testing.T, payload []byte, method uint8, builtin bool) {
		fuzzParse(t, ParseCoreMessage, false, payload, method, builtin)
	})
}
