package mcpclient

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRawSchemas bounds the requested schemas kept for elicitations not yet handled (one the
// SDK refuses before the handler is never taken).
const maxRawSchemas = 8

// rawSchemas keeps the requested schemas of the elicitation/create requests a server sent,
// as it wrote them. The SDK decodes a requested schema into a map, which loses the order of
// the form's fields; the handler takes back the bytes the server wrote by the decoded
// schema's content.
type rawSchemas struct {
	mu      sync.Mutex
	pending []rawSchema // +checklocks:mu
}

type rawSchema struct {
	canon string // the schema re-encoded with sorted keys
	raw   json.RawMessage
}

// canonical is v (JSON bytes) decoded and encoded again: objects' keys sorted, numbers in
// one form.
func canonical(b []byte) (string, bool) {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return "", false
	}
	out, err := json.Marshal(v)
	return string(out), err == nil
}

// note keeps the requested schema of an elicitation/create's params.
func (r *rawSchemas) note(params json.RawMessage) {
	var p struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestedSchema) == 0 {
		return
	}
	canon, ok := canonical(p.RequestedSchema)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, rawSchema{canon: canon, raw: p.RequestedSchema})
	if n := len(r.pending); n > maxRawSchemas {
		r.pending = append(r.pending[:0], r.pending[n-maxRawSchemas:]...)
	}
}

// take returns the bytes the server wrote of the schema the SDK decoded, the oldest kept
// one of that content, and forgets them; else the decoded schema encoded again.
func (r *rawSchemas) take(decoded any) json.RawMessage {
	b, err := schemaBytes(decoded)
	if err != nil || b == nil {
		return b
	}
	canon, ok := canonical(b)
	if !ok {
		return b
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, p := range r.pending {
		if p.canon == canon {
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			return p.raw
		}
	}
	return b
}

// schemaTransport is a transport whose connection notes the requested schemas of the
// elicitation/create requests it reads.
type schemaTransport struct {
	mcp.Transport
	raw *rawSchemas
}

func (t schemaTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return schemaConn{Connection: c, raw: t.raw}, nil
}

type schemaConn struct {
	mcp.Connection
	raw *rawSchemas
}

func (c schemaConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "elicitation/create" {
		c.raw.note(req.Params)
	}
	return msg, err
}
