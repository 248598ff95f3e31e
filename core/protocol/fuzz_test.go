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
	if again.Kind != m.Kind || again.ID != m.ID || again.Method != m.Method || !bytes.Equal(again.Attachment, m.Attachment) {
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

// FuzzAttachment checks the attachment rule (core/protocol doc.go, “Framing”) against the
// parse of the JSON text alone: text, a NUL byte and att are accepted from the core exactly
// when text alone is, att is not empty, and text is a success result of a method whose
// result may carry one (or of no request in flight); never from a host. What is accepted
// carries att as it is.
func FuzzAttachment(f *testing.F) {
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
		text, att, _ := bytes.Cut(payload, []byte{0})
		for i, m := range methods {
			if m.Name == c.Answers || c.Answers == "" && i == 0 {
				f.Add(text, att, uint8(i), c.Answers == "")
			}
		}
	}
	f.Fuzz(func(t *testing.T, text, att []byte, method uint8, late bool) {
		if bytes.IndexByte(text, 0) >= 0 {
			return // the first NUL would end the text elsewhere
		}
		name := methods[int(method)%len(methods)].Name
		answers := answering(name)
		if late {
			answers = func(uint64) (string, bool) { return "", false }
		}
		payload := append(append(append([]byte{}, text...), 0), att...)
		if _, err := ParseHostMessage(payload, TierPlugin, answers); err == nil {
			t.Fatalf("a host's payload with an attachment was accepted: %q", payload)
		}
		alone, aloneErr := ParseCoreMessage(text, TierPlugin, answers)
		m, err := ParseCoreMessage(payload, TierPlugin, answers)
		spec, _ := Lookup(name)
		want := aloneErr == nil && len(att) > 0 && alone.Kind == KindResponse && alone.Error == nil && (late || spec.ResultAttachment)
		if (err == nil) != want {
			t.Fatalf("text %q with attachment %q: accepted=%v (%v), want %v (the text alone: %v)", text, att, err == nil, err, want, aloneErr)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidMessage) {
				t.Fatalf("refusal is not an ErrInvalidMessage: %v", err)
			}
			return
		}
		if !bytes.Equal(m.Attachment, att) || m.ID != alone.ID || m.Method != alone.Method || !bytes.Equal(m.Result, alone.Result) {
			t.Fatalf("with its attachment %q parsed as %+v, alone as %+v", att, m, alone)
		}
	})
}
