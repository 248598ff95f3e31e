package protocol

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cwx-dev/cwx/core/errdefs"
)

// JSON-RPC error codes used on the wire (core/protocol doc.go, “Error codes”).
const (
	CodeParseError      = -32700
	CodeInvalidRequest  = -32600
	CodeMethodNotFound  = -32601
	CodeInvalidParams   = -32602
	CodeInternal        = -32603
	CodeExecutionFailed = -32000
	CodeNotAvailable    = -32001
	CodeRefused         = -32002
	CodeDenied          = -32003
	CodeCancelled       = -32800
)

// ErrorCodeNames maps each code to its name (used by the TypeScript generator and logs).
var ErrorCodeNames = map[int]string{
	CodeParseError:      "ParseError",
	CodeInvalidRequest:  "InvalidRequest",
	CodeMethodNotFound:  "MethodNotFound",
	CodeInvalidParams:   "InvalidParams",
	CodeInternal:        "Internal",
	CodeExecutionFailed: "ExecutionFailed",
	CodeNotAvailable:    "NotAvailable",
	CodeRefused:         "Refused",
	CodeDenied:          "Denied",
	CodeCancelled:       "Cancelled",
}

// RPCError is the error object of a JSON-RPC error response. It is an error itself, so
// a handler may return one to choose the code it is answered with.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if name, ok := ErrorCodeNames[e.Code]; ok {
		return fmt.Sprintf("%s (%d): %s", name, e.Code, e.Message)
	}
	return fmt.Sprintf("error %d: %s", e.Code, e.Message)
}

// ErrInvalidMessage is wrapped by every refusal of ParseHostMessage and ParseCoreMessage.
// A protocol violation ends the channel (the core kills the host). It is a case of
// errdefs.ErrViolation.
var ErrInvalidMessage = errdefs.New(errdefs.ErrViolation, "invalid protocol message")

// Kinds of violation a caller may match with errors.Is in addition to ErrInvalidMessage.
var (
	// ErrSyntax: the payload is not a single well-formed JSON value.
	ErrSyntax = errors.New("malformed JSON")
	// ErrInvalidUTF8: a string holds bytes that are not UTF-8 (or a lone surrogate escape).
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrDuplicateKey: an object repeats a key.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrTooDeep: nesting exceeds MaxDepth.
	ErrTooDeep = errors.New("nesting too deep")
	// ErrEnvelope: the JSON-RPC envelope breaks a rule (jsonrpc, id, method/result/error).
	ErrEnvelope = errors.New("bad envelope")
	// ErrUnknownMethod: the method is not in the table, not sent in this direction, or
	// not allowed on the tier. It is errdefs.ErrNotAllowed, the kind core/rpc returns for a
	// method the core may not send.
	ErrUnknownMethod = errdefs.ErrNotAllowed
	// ErrShape: params or result do not match the method's types.
	ErrShape = errors.New("bad params or result")
)

// ViolationError explains why a message was refused. It matches ErrInvalidMessage and
// its Kind with errors.Is.
type ViolationError struct {
	Kind   error  // one of ErrSyntax, ErrInvalidUTF8, ErrDuplicateKey, ErrTooDeep, ErrEnvelope, ErrUnknownMethod, ErrShape
	Method string // the method concerned, when known
	Path   string // where in the message, e.g. "params.runtime.name"; empty for the whole message
	Reason string // human-readable reason
}

func (e *ViolationError) Error() string {
	msg := "protocol violation: "
	if e.Path != "" {
		if e.Method != "" {
			msg += e.Method + " "
		}
		msg += e.Path + ": "
	}
	return msg + e.Reason
}

// Unwrap lets errors.Is match both ErrInvalidMessage and the kind.
func (e *ViolationError) Unwrap() []error { return []error{ErrInvalidMessage, e.Kind} }

func violation(kind error, method, path, format string, args ...any) *ViolationError {
	return &ViolationError{Kind: kind, Method: method, Path: path, Reason: fmt.Sprintf(format, args...)}
}
