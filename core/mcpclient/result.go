package mcpclient

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cwx-dev/cwx/core/content"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Blocks turns a result's MCP content into the wire's blocks and applies the one content
// policy (core/content: count, kinds, sizes); structuredContent is validated against the
// tool's admitted outputSchema, and a tool with one must give it unless the result is an
// error (the MCP specification's rule).
func Blocks(t Tool, r Result) ([]protocol.ContentBlock, error) {
	out := make([]protocol.ContentBlock, 0, len(r.Content))
	for i, c := range r.Content {
		b, err := block(c)
		if err != nil {
			return nil, fmt.Errorf("content block %d: %w", i, err)
		}
		out = append(out, b)
	}
	if err := content.Check(out); err != nil {
		return nil, err
	}
	if t.output != nil && !r.IsError {
		if r.Structured == nil {
			return nil, fmt.Errorf("tool %q has an outputSchema but its result has no structuredContent", t.Wire)
		}
		if err := t.output.Validate(r.Structured); err != nil {
			return nil, fmt.Errorf("structuredContent does not fit the tool's outputSchema: %w", err)
		}
	}
	return out, nil
}

func block(c mcp.Content) (protocol.ContentBlock, error) {
	b64 := base64.StdEncoding.EncodeToString
	switch c := c.(type) {
	case *mcp.TextContent:
		return protocol.ContentBlock{Type: protocol.ContentText, Text: c.Text}, nil
	case *mcp.ImageContent:
		return protocol.ContentBlock{Type: protocol.ContentImage, Data: b64(c.Data), MimeType: c.MIMEType}, nil
	case *mcp.AudioContent:
		return protocol.ContentBlock{Type: protocol.ContentAudio, Data: b64(c.Data), MimeType: c.MIMEType}, nil
	case *mcp.ResourceLink:
		return protocol.ContentBlock{Type: protocol.ContentResourceLink, URI: c.URI, Name: c.Name, MimeType: c.MIMEType}, nil
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return protocol.ContentBlock{}, fmt.Errorf("an embedded resource without its contents")
		}
		b := protocol.ContentBlock{Type: protocol.ContentResource, URI: c.Resource.URI, MimeType: c.Resource.MIMEType, Text: c.Resource.Text}
		if c.Resource.Blob != nil {
			b.Blob = b64(c.Resource.Blob)
		}
		return b, nil
	}
	raw, _ := json.Marshal(c)
	return protocol.ContentBlock{}, fmt.Errorf("a content block of a kind cwx does not take (%.80s)", raw)
}

// contentBytes is what a result holds, for max_result_bytes where the connection does not
// count the JSON read (Streamable HTTP): each block's text, data, URI and name, and the
// structured content's JSON, without encoding the blocks again.
func contentBytes(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			n += len(c.Text)
		case *mcp.ImageContent:
			n += len(c.Data)*4/3 + len(c.MIMEType)
		case *mcp.AudioContent:
			n += len(c.Data)*4/3 + len(c.MIMEType)
		case *mcp.ResourceLink:
			n += len(c.URI) + len(c.Name) + len(c.Description)
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil {
				n += len(r.URI) + len(r.Text) + len(r.Blob)*4/3
			}
		}
		n += 32 // the block's own keys
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			n += len(b)
		}
	}
	return n
}
