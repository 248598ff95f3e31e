package protocol

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// Encoders. The envelope is written by hand around the params or result, which is
// written straight into the same buffer (encode_wire.go), so a large payload is
// validated once and copied once. Field order and bytes are those of encoding/json
// without HTML escaping.

// NewRequest encodes a request. A nil params is sent as {}.
func NewRequest(id uint64, method string, params any) ([]byte, error) {
	b := appendHead(id, true, method, params)
	b, err := appendBody(b, `,"params":`, params)
	if err != nil {
		return nil, fmt.Errorf("encode %s params: %w", method, err)
	}
	return b, nil
}

// NewNotification encodes a notification. A nil params is sent as {}.
func NewNotification(method string, params any) ([]byte, error) {
	b := appendHead(0, false, method, params)
	b, err := appendBody(b, `,"params":`, params)
	if err != nil {
		return nil, fmt.Errorf("encode %s params: %w", method, err)
	}
	return b, nil
}

// WithAttachment is a result sent with an attachment (core/protocol doc.go, “Framing”):
// Result is encoded as the result, Data follows the JSON text after a NUL byte (nothing
// follows when Data is empty). Only a method whose MethodSpec.ResultAttachment is set may
// answer with one; the host refuses it anywhere else.
type WithAttachment struct {
	Result any
	Data   []byte
}

// NewResultParts encodes a success response in the two parts that make its payload once
// joined: the JSON text (ending with the NUL byte when an attachment follows) and the
// attachment itself, not copied, so a writer that takes the payload in pieces never joins
// them. A nil result is sent as {}; a WithAttachment is sent as its Result followed by its
// attachment.
func NewResultParts(id uint64, result any) (text, attachment []byte, err error) {
	if wa, ok := result.(WithAttachment); ok {
		result, attachment = wa.Result, wa.Data
	}
	b, err := appendBody(appendHead(id, true, "", result), `,"result":`, result)
	if err != nil {
		return nil, nil, fmt.Errorf("encode result of request %d: %w", id, err)
	}
	if len(attachment) == 0 {
		return b, nil, nil
	}
	return append(b, 0), attachment, nil
}

// NewErrorResponse encodes an error response.
func NewErrorResponse(id uint64, e *RPCError) ([]byte, error) {
	if e == nil {
		return nil, fmt.Errorf("encode error response to request %d: nil error", id)
	}
	b, err := appendBody(appendHead(id, true, "", e), `,"error":`, e)
	if err != nil {
		return nil, fmt.Errorf("encode error response to request %d: %w", id, err)
	}
	return b, nil
}

// appendHead starts an envelope: jsonrpc, then id and method when given, in a buffer
// sized for the body to come.
func appendHead(id uint64, hasID bool, method string, body any) []byte {
	size := 64 + len(method)
	if rv := reflect.ValueOf(body); body != nil && isWire(rv.Type()) {
		size += wireSize(rv)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"jsonrpc":"2.0"`...)
	if hasID {
		b = append(b, `,"id":`...)
		b = strconv.AppendUint(b, id, 10)
	}
	if method != "" {
		b = append(b, `,"method":`...)
		b = appendString(b, method)
	}
	return b
}

// appendBody appends key, v encoded as an object (nil and null become {}) and the
// envelope's closing brace. The body sits at depth 2 (the envelope is depth 1).
func appendBody(b []byte, key string, v any) ([]byte, error) {
	b = append(b, key...)
	if v == nil {
		return append(b, "{}}"...), nil
	}
	mark := len(b)
	out, err := b, errNotWire
	if rv := reflect.ValueOf(v); isWire(rv.Type()) {
		out, err = appendWire(b, rv, 2)
	}
	if errors.Is(err, errNotWire) { // not (entirely) a wire type: encoding/json
		out, err = appendJSON(b[:mark], v)
	}
	if err != nil {
		return nil, err
	}
	b = out
	if string(b[mark:]) == "null" {
		b = append(b[:mark], "{}"...)
	}
	return append(b, '}'), nil
}
