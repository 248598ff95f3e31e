package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// Benchmarks for the tool/call path through core/rpc: the host's answer parsed by
// ParseHostMessage, and the request encoded by NewRequest.

var benchSizes = []struct {
	name string
	n    int
}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}, {"8MiB", 8 << 20}}

func toolResultPayload(n int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` +
		strings.Repeat("x", n) + `"}],"is_error":false}}`)
}

func BenchmarkParseToolResult(b *testing.B) {
	answers := answering(MethodToolCall)
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			payload := toolResultPayload(s.n)
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				m, err := ParseHostMessage(payload, TierPlugin, answers)
				if err != nil {
					b.Fatal(err)
				}
				if r := m.Value.(*ToolResult); len(r.Content[0].Text) != s.n {
					b.Fatalf("text of %d bytes, want %d", len(r.Content[0].Text), s.n)
				}
			}
		})
	}
}

// BenchmarkParseToolResultEscaped parses a result whose text is source code: a newline
// every 60 bytes and quotes, as real tool output has.
func BenchmarkParseToolResultEscaped(b *testing.B) {
	answers := answering(MethodToolCall)
	line := `\tfmt.Printf(\"%s: %d\\n\", name, count) // a \"quoted\" word\n`
	for _, s := range benchSizes[:2] {
		b.Run(s.name, func(b *testing.B) {
			text := strings.Repeat(line, s.n/len(line))
			payload := []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` +
				text + `"}],"is_error":false}}`)
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseHostMessage(payload, TierPlugin, answers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseToolCall(b *testing.B) {
	for _, s := range benchSizes[:2] {
		b.Run(s.name, func(b *testing.B) {
			payload, err := NewRequest(7, MethodToolCall, benchToolCall(s.n))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(payload)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseCoreMessage(payload, TierPlugin, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchToolCall(n int) *ToolCallParams {
	return &ToolCallParams{
		Handle: 3, CallID: "call-1", DeadlineMS: 120000, Workspace: "/work/space",
		Input: json.RawMessage(`{"q":"` + strings.Repeat("y", n) + `"}`),
	}
}

func BenchmarkEncodeToolCall(b *testing.B) {
	for _, s := range benchSizes[:2] {
		b.Run("input="+s.name, func(b *testing.B) {
			params := benchToolCall(s.n)
			b.SetBytes(int64(len(params.Input)))
			b.ReportAllocs()
			id := uint64(0)
			for b.Loop() {
				id++
				if _, err := NewRequest(id, MethodToolCall, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeToolResult(b *testing.B) {
	for _, s := range benchSizes[:2] {
		b.Run(s.name, func(b *testing.B) {
			res := &ToolResult{Content: []ContentBlock{{Type: ContentText, Text: strings.Repeat("x", s.n)}}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewResult(7, res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
