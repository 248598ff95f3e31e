package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Case is one file of the conformance corpus (testdata/protocol/*.json), shared with the
// JS host's validator:
//
//	{"description"?: "...", "direction": "host_to_core"|"core_to_host", "valid": bool,
//	 "tier"?: "plugin"|"builtin", "answers"?: "<method>", "error"?: "<substring>",
//	 "frame": {...} | "raw_base64": "...", "normalized"?: {...}}
//
// No tier means the case holds on both tiers. A response case names the method it answers.
// An invalid case names a substring its refusal reason must contain. normalized, when
// present, is the JSON a valid frame re-encodes to (absent params become {}, optional
// nulls and tolerated unknown fields disappear); otherwise it re-encodes to frame itself,
// or to the bytes of raw_base64 exactly (the one way to write a case with an attachment).
type Case struct {
	Description string          `json:"description,omitempty"`
	Direction   Direction       `json:"direction"`
	Valid       bool            `json:"valid"`
	Tier        Tier            `json:"tier,omitempty"`
	Answers     string          `json:"answers,omitempty"`
	Error       string          `json:"error,omitempty"`
	Frame       json.RawMessage `json:"frame,omitempty"`
	RawBase64   string          `json:"raw_base64,omitempty"`
	Normalized  json.RawMessage `json:"normalized,omitempty"`
}

// ErrBadCase means a corpus file is not in the corpus format.
var ErrBadCase = errors.New("not a protocol corpus case")

// ParseCase reads one corpus file.
func ParseCase(data []byte) (*Case, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCase, err)
	}
	switch {
	case c.Direction != HostToCore && c.Direction != CoreToHost:
		return nil, fmt.Errorf("%w: direction must be host_to_core or core_to_host, not %q", ErrBadCase, c.Direction)
	case c.Tier != "" && !c.Tier.Valid():
		return nil, fmt.Errorf("%w: tier must be plugin or builtin, not %q", ErrBadCase, c.Tier)
	case (len(c.Frame) == 0) == (c.RawBase64 == ""):
		return nil, fmt.Errorf("%w: exactly one of frame and raw_base64 is needed", ErrBadCase)
	case !c.Valid && c.Error == "":
		return nil, fmt.Errorf("%w: an invalid case needs an \"error\" substring", ErrBadCase)
	case c.Valid && c.Error != "":
		return nil, fmt.Errorf("%w: a valid case carries no \"error\"", ErrBadCase)
	}
	if _, err := c.Payload(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Payload returns the bytes the case sends: the compacted frame, or the decoded raw_base64.
func (c *Case) Payload() ([]byte, error) {
	if c.RawBase64 != "" {
		b, err := base64.StdEncoding.DecodeString(c.RawBase64)
		if err != nil {
			return nil, fmt.Errorf("%w: raw_base64: %w", ErrBadCase, err)
		}
		return b, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, c.Frame); err != nil {
		return nil, fmt.Errorf("%w: frame: %w", ErrBadCase, err)
	}
	return buf.Bytes(), nil
}

// Tiers returns the tiers the case is checked on: its own, or both.
func (c *Case) Tiers() []Tier {
	if c.Tier != "" {
		return []Tier{c.Tier}
	}
	return []Tier{TierPlugin, TierBuiltin}
}

// answerLookup answers every id with the case's answers method.
func (c *Case) answerLookup() AnswerLookup {
	if c.Answers == "" {
		return nil
	}
	return func(uint64) (string, bool) { return c.Answers, true }
}

// Verdict is the outcome of checking a case on one tier.
type Verdict struct {
	Tier     Tier
	Accepted bool
	Reason   string   // why it was refused (empty when accepted)
	Message  *Message // the parsed message when accepted
	Agrees   bool     // the outcome matches valid (and the error substring)
	Detail   string   // what disagrees, when Agrees is false
}

// Check parses the case's payload on tier as its direction's receiver would.
func (c *Case) Check(tier Tier) Verdict {
	v := Verdict{Tier: tier}
	payload, err := c.Payload()
	if err == nil {
		parse := ParseHostMessage
		if c.Direction == CoreToHost {
			parse = ParseCoreMessage
		}
		v.Message, err = parse(payload, tier, c.answerLookup())
	}
	v.Accepted = err == nil
	if err != nil {
		v.Reason = err.Error()
	}
	switch {
	case c.Valid && !v.Accepted:
		v.Detail = "expected valid, refused"
	case !c.Valid && v.Accepted:
		v.Detail = "expected invalid, accepted"
	case !c.Valid && !strings.Contains(v.Reason, c.Error):
		v.Detail = fmt.Sprintf("refused, but the reason does not contain %q", c.Error)
	default:
		v.Agrees = true
	}
	return v
}
