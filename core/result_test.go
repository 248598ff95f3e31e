package core

import (
	"strings"
	"testing"
)

func TestToolResultText(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	cases := []struct {
		name    string
		content []ContentBlock
		want    string
	}{
		{"none", nil, ""},
		{"one block", []ContentBlock{{Type: "text", Text: "hi"}}, "hi"},
		{"one large block", []ContentBlock{{Type: "text", Text: big}}, big},
		{"blocks joined by newlines", []ContentBlock{{Type: "text", Text: "a"}, {Type: "text", Text: ""}, {Type: "text", Text: "c"}}, "a\n\nc"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := (ToolResult{Content: tc.content}).Text(); got != tc.want {
				t.Fatalf("Text() = %.40q (%d bytes), want %.40q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
		})
	}
}

// A one-block result is handed out without copying its text.
func TestToolResultTextDoesNotCopy(t *testing.T) {
	r := ToolResult{Content: []ContentBlock{{Type: "text", Text: strings.Repeat("x", 1<<20)}}}
	if allocs := testing.AllocsPerRun(10, func() { _ = r.Text() }); allocs != 0 {
		t.Fatalf("Text() allocated %v times for one block", allocs)
	}
}
