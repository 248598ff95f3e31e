package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// envelope is the wire layout of every message, in the order fields are written.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *uint64         `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// NewRequest encodes a request. A nil params is sent as {}.
func NewRequest(id uint64, method string, params any) ([]byte, error) {
	p, err := marshalObject(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s params: %w", method, err)
	}
	return marshal(envelope{JSONRPC: "2.0", ID: &id, Method: method, Params: p})
}

// NewNotification encodes a notification. A nil params is sent as {}.
func NewNotification(method string, params any) ([]byte, error) {
	p, err := marshalObject(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s params: %w", method, err)
	}
	return marshal(envelope{JSONRPC: "2.0", Method: method, Params: p})
}

// NewResult encodes a success response. A nil result is sent as {}.
func NewResult(id uint64, result any) ([]byte, error) {
	r, err := marshalObject(result)
	if err != nil {
		return nil, fmt.Errorf("encode result of request %d: %w", id, err)
	}
	return marshal(envelope{JSONRPC: "2.0", ID: &id, Result: r})
}

// NewErrorResponse encodes an error response.
func NewErrorResponse(id uint64, e *RPCError) ([]byte, error) {
	if e == nil {
		return nil, fmt.Errorf("encode error response to request %d: nil error", id)
	}
	return marshal(envelope{JSONRPC: "2.0", ID: &id, Error: e})
}

func marshalObject(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return json.RawMessage("{}"), nil
	}
	return b, nil
}

// marshal encodes compactly without HTML escaping.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
