package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Kind says what a message is.
type Kind int

// Message kinds.
const (
	KindRequest Kind = iota + 1
	KindNotification
	KindResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Message is one parsed JSON-RPC message. Params, Result and the json.RawMessage fields
// of Value are slices of the parsed payload (not copies): the payload must not be
// modified while the message is in use.
type Message struct {
	Kind   Kind
	ID     uint64          // requests and responses
	Method string          // requests/notifications; for a response, the method it answers ("" if unknown)
	Params json.RawMessage // the params object as sent ("{}" when absent)
	Result json.RawMessage // success response, as sent
	Error  *RPCError       // error response
	// Value is the decoded params (e.g. *HelloParams) of a request or notification, or
	// the decoded result (e.g. *ActivateResult) of a success response whose method is
	// known and has a typed result. It is nil otherwise.
	Value any
	// Attachment is the bytes after the JSON text (core/protocol doc.go, “Framing”): only
	// the result of a method whose MethodSpec.ResultAttachment is set has one. It is a
	// slice of the payload; nil when there is none.
	Attachment []byte
}

// AnswerLookup tells which method an in-flight request id answers. The RPC layer passes
// its outbound table; ok is false for an id that is not in flight.
type AnswerLookup func(id uint64) (method string, ok bool)

// envelopeKeys are the only top-level keys of a message, in both directions.
var envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// ParseHostMessage parses and validates a payload a host of the given tier sent. It is
// strict everywhere. A response is checked against the method answers returns for its
// id; a response to an id not in flight is returned with Method "" and an unchecked
// result, for the caller to drop (a late answer is not a violation). The message shares
// payload's bytes (see [Message]).
func ParseHostMessage(payload []byte, tier Tier, answers AnswerLookup) (*Message, error) {
	return parse(payload, HostToCore, tier, answers)
}

// ParseCoreMessage parses and validates a payload the core sent to a host of the given
// tier, tolerating unknown fields where the method sheet marks a type tolerant. The
// envelope itself is strict in both directions.
func ParseCoreMessage(payload []byte, tier Tier, answers AnswerLookup) (*Message, error) {
	return parse(payload, CoreToHost, tier, answers)
}

func parse(payload []byte, dir Direction, tier Tier, answers AnswerLookup) (*Message, error) {
	if !tier.Valid() {
		return nil, fmt.Errorf("protocol: unknown tier %q (want plugin or builtin)", tier)
	}
	if len(payload) > MaxFrame {
		return nil, envelopeErr("payload of %d bytes exceeds the %d byte frame limit", len(payload), MaxFrame)
	}
	text, attachment, err := splitAttachment(payload)
	if err != nil {
		return nil, err
	}
	root, big, err := scanJSON(text)
	if err != nil {
		return nil, err
	}
	p := &parser{data: text, big: big, dir: dir, tier: tier, root: root}
	if err := p.envelope(); err != nil {
		return nil, err
	}
	var m *Message
	if root.get("method") != nil {
		m, err = p.call()
	} else {
		m, err = p.response(answers)
	}
	if err != nil || attachment == nil {
		return m, err
	}
	if err := attachmentAllowed(m, dir); err != nil {
		return nil, err
	}
	m.Attachment = attachment
	return m, nil
}

// splitAttachment cuts a payload at its first NUL byte into the JSON text and the
// attachment (nil when there is no NUL). JSON text never holds a NUL byte, so the first one
// ends it. An attachment is never empty: none is written for zero bytes.
func splitAttachment(payload []byte) (text, attachment []byte, err error) {
	i := bytes.IndexByte(payload, 0)
	if i < 0 {
		return payload, nil, nil
	}
	if i == len(payload)-1 {
		return nil, nil, envelopeErr("the payload ends with the NUL byte of an empty attachment (zero bytes are sent as no attachment)")
	}
	return payload[:i], payload[i+1 : len(payload) : len(payload)], nil
}

// attachmentAllowed refuses an attachment everywhere but on the success result, sent by the
// core, of a method whose result may carry one. A late answer (its method unknown) keeps it,
// for the caller to drop with the answer.
func attachmentAllowed(m *Message, dir Direction) error {
	switch {
	case dir == HostToCore:
		return violation(ErrEnvelope, m.Method, "", "a host sends no attachment (a NUL byte after the JSON text)")
	case m.Kind != KindResponse || m.Error != nil:
		return violation(ErrEnvelope, m.Method, "", "only a success result carries an attachment (a NUL byte after the JSON text)")
	case m.Method == "":
		return nil
	}
	if spec, _ := Lookup(m.Method); !spec.ResultAttachment {
		return violation(ErrEnvelope, m.Method, "", "the result of %s carries no attachment (a NUL byte after the JSON text)", m.Method)
	}
	return nil
}

type parser struct {
	data []byte
	big  []span // large values, for checker.expand
	dir  Direction
	tier Tier
	root *jvalue
}

func envelopeErr(format string, args ...any) error {
	return violation(ErrEnvelope, "", "", format, args...)
}

// envelope checks what every message shares: an object, known keys, jsonrpc, id.
func (p *parser) envelope() error {
	if p.root.kind != jObject {
		return envelopeErr("message is not a JSON object (got %s)", p.root.kind)
	}
	for _, m := range p.root.members {
		if !isEnvelopeKey(m.key) {
			return envelopeErr("unknown envelope field %q", m.key)
		}
	}
	v := p.root.get("jsonrpc")
	if v == nil || v.kind != jString || v.str != "2.0" {
		return envelopeErr(`jsonrpc must be "2.0"`)
	}
	if id := p.root.get("id"); id != nil {
		if reason := checkInteger(id, p.data, false); reason != "" {
			return envelopeErr("id %s", reason)
		}
	}
	return nil
}

func isEnvelopeKey(k string) bool {
	for _, e := range envelopeKeys {
		if k == e {
			return true
		}
	}
	return false
}

func (p *parser) id() uint64 {
	v := p.root.get("id")
	return uint64(integerValue(p.data[v.start:v.end])) // checked by envelope
}

// call handles a request or a notification.
func (p *parser) call() (*Message, error) {
	mv := p.root.get("method")
	if mv.kind != jString {
		return nil, envelopeErr("method must be a string (got %s)", mv.kind)
	}
	method := mv.str
	if p.root.get("result") != nil || p.root.get("error") != nil {
		return nil, violation(ErrEnvelope, method, "", "%s: a request or notification carries no result or error", method)
	}
	spec, ok := Lookup(method)
	if !ok {
		return nil, violation(ErrUnknownMethod, method, "", "unknown method %q", method)
	}
	if !spec.SentBy(p.dir) {
		return nil, violation(ErrUnknownMethod, method, "", "unknown method %q (%s never sends it)", method, p.dir.sender())
	}
	if !spec.AllowedOn(p.tier) {
		return nil, violation(ErrUnknownMethod, method, "", "%q is not allowed on the %s tier", method, p.tier)
	}
	hasID := p.root.get("id") != nil
	if spec.Request && !hasID {
		return nil, violation(ErrEnvelope, method, "", "%q is a request but carries no id", method)
	}
	if !spec.Request && hasID {
		return nil, violation(ErrEnvelope, method, "", "%q is a notification but carries an id", method)
	}
	m := &Message{Kind: KindNotification, Method: method, Params: json.RawMessage("{}")}
	if spec.Request {
		m.Kind, m.ID = KindRequest, p.id()
	}
	params := p.root.get("params")
	if params == nil {
		params = &jvalue{kind: jObject, expanded: true}
	} else if params.kind != jObject {
		return nil, violation(ErrEnvelope, method, "", "%s: params must be an object (got %s)", method, params.kind)
	} else {
		m.Params = p.slice(params)
	}
	v, err := p.decode(method, spec.params, params, "params")
	if err != nil {
		return nil, err
	}
	m.Value = v
	return m, nil
}

// decode validates v against type t and stores it into a new *t.
func (p *parser) decode(method string, t reflect.Type, v *jvalue, path string) (any, error) {
	c := &checker{data: p.data, big: p.big, allStrict: p.dir == HostToCore, method: method}
	c.enter(pathSeg{name: path})
	ptr := reflect.New(t)
	if err := c.shape(Shapes()[t.Name()], v, ptr.Elem()); err != nil {
		return nil, err
	}
	return ptr.Interface(), nil
}

// response handles a success or error response.
func (p *parser) response(answers AnswerLookup) (*Message, error) {
	idv := p.root.get("id")
	if idv == nil {
		return nil, envelopeErr("a response needs an id (a message without a method is a response)")
	}
	if p.root.get("params") != nil {
		return nil, envelopeErr("a response carries no params")
	}
	res, rerr := p.root.get("result"), p.root.get("error")
	if (res == nil) == (rerr == nil) {
		return nil, envelopeErr("a response has exactly one of result and error")
	}
	m := &Message{Kind: KindResponse, ID: p.id()}
	var spec MethodSpec
	if answers != nil {
		if method, ok := answers(m.ID); ok {
			s, known := Lookup(method)
			if !known || !s.Request || !s.SentBy(opposite(p.dir)) {
				return nil, violation(ErrUnknownMethod, method, "", "%q has no result from %s (it is not a request %s sends)", method, p.dir.sender(), opposite(p.dir).sender())
			}
			spec, m.Method = s, method
		}
	}
	if rerr != nil {
		e, err := p.decode(m.Method, reflect.TypeFor[RPCError](), rerr, "error")
		if err != nil {
			return nil, err
		}
		m.Error = e.(*RPCError)
		return m, nil
	}
	m.Result = p.slice(res)
	if m.Method == "" {
		return m, nil
	}
	if spec.result == nil {
		if res.kind != jObject {
			return nil, violation(ErrShape, m.Method, "result", "must be an object (got %s)", res.kind)
		}
		return m, nil
	}
	v, err := p.decode(m.Method, spec.result, res, "result")
	if err != nil {
		return nil, err
	}
	m.Value = v
	return m, nil
}

func opposite(d Direction) Direction {
	if d == HostToCore {
		return CoreToHost
	}
	return HostToCore
}

func (d Direction) sender() string {
	if d == HostToCore {
		return "the host"
	}
	return "the core"
}

// slice returns the bytes of v as written, sharing the payload (capacity capped so an
// append by the caller cannot write into the rest of it).
func (p *parser) slice(v *jvalue) json.RawMessage { return p.data[v.start:v.end:v.end] }

// ValueOf returns msg's decoded Value as a *T, and whether it is one (false for a nil msg).
func ValueOf[T any](msg *Message) (*T, bool) {
	if msg == nil {
		return nil, false
	}
	v, ok := msg.Value.(*T)
	return v, ok
}
