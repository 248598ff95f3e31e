package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
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
// elicitation/create requests it reads, and bounds the result of each tools/call by
// maxResult bytes of JSON as the server wrote it: an answer over it is turned into the
// error [codeResultTooLarge] before the SDK decodes it, so a large result is measured
// without being encoded again.
type schemaTransport struct {
	mcp.Transport
	raw       *rawSchemas
	maxResult int
}

func (t schemaTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return schemaConn{Connection: c, raw: t.raw, max: t.maxResult, calls: &callIDs{ids: map[jsonrpc.ID]bool{}}}, nil
}

// codeResultTooLarge is the error a tools/call's answer over max_result_bytes becomes.
const codeResultTooLarge = -32099

// callIDs are the ids of the tools/call requests written and not yet answered.
type callIDs struct {
	mu  sync.Mutex
	ids map[jsonrpc.ID]bool // +checklocks:mu
}

type schemaConn struct {
	mcp.Connection
	raw   *rawSchemas
	max   int
	calls *callIDs
}

func (c schemaConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" && req.ID.IsValid() && c.max > 0 {
		c.calls.mu.Lock()
		c.calls.ids[req.ID] = true
		c.calls.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c schemaConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "elicitation/create" {
			c.raw.note(m.Params)
		}
	case *jsonrpc.Response:
		c.calls.mu.Lock()
		call := c.calls.ids[m.ID]
		delete(c.calls.ids, m.ID)
		c.calls.mu.Unlock()
		if call && len(m.Result) > c.max {
			return &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: codeResultTooLarge,
				Message: fmt.Sprintf("the result is %d bytes; max_result_bytes is %d", len(m.Result), c.max)}}, err
		}
	}
	return msg, err
}
