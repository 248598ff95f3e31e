package content

import (
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

const png = "iVBORw0KGgo=" // 8 bytes

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		blocks []protocol.ContentBlock
		want   string // "" passes
	}{
		{"text", []protocol.ContentBlock{{Type: protocol.ContentText, Text: "hi"}}, ""},
		{"image", []protocol.ContentBlock{{Type: protocol.ContentImage, Data: png, MimeType: "image/png"}}, ""},
		{"audio", []protocol.ContentBlock{{Type: protocol.ContentAudio, Data: "UklGRg==", MimeType: "audio/wav"}}, ""},
		{"link", []protocol.ContentBlock{{Type: protocol.ContentResourceLink, URI: "file:///w/a.txt", Name: "a.txt", MimeType: "text/plain"}}, ""},
		{"resource text", []protocol.ContentBlock{{Type: protocol.ContentResource, URI: "file:///w/b", Text: "x"}}, ""},
		{"resource blob", []protocol.ContentBlock{{Type: protocol.ContentResource, URI: "file:///w/b", Blob: png, MimeType: "application/octet-stream"}}, ""},
		{"unknown type", []protocol.ContentBlock{{Type: "video"}}, "content block 1 (video) is not a type cwx carries"},
		{"image with audio mime", []protocol.ContentBlock{{Type: protocol.ContentImage, Data: png, MimeType: "audio/wav"}}, "it must be image/…"},
		{"bad base64", []protocol.ContentBlock{{Type: protocol.ContentImage, Data: "not base64!", MimeType: "image/png"}}, "not standard base64"},
		{"upper-case mime", []protocol.ContentBlock{{Type: protocol.ContentImage, Data: png, MimeType: "image/PNG"}}, "not a lower-case type/subtype"},
		{"big image", []protocol.ContentBlock{{Type: protocol.ContentImage, Data: strings.Repeat("A", MaxBlockData+4), MimeType: "image/png"}}, "the limit is 4194304 (return a resource_link instead)"},
		{"too much in all", []protocol.ContentBlock{
			{Type: protocol.ContentImage, Data: strings.Repeat("A", MaxBlockData), MimeType: "image/png"},
			{Type: protocol.ContentImage, Data: strings.Repeat("A", MaxBlockData), MimeType: "image/png"},
			{Type: protocol.ContentImage, Data: png, MimeType: "image/png"}}, "add up to more than"},
		{"relative uri", []protocol.ContentBlock{{Type: protocol.ContentResourceLink, URI: "a.txt", Name: "a"}}, "not an absolute URI"},
		{"escape in name", []protocol.ContentBlock{{Type: protocol.ContentResourceLink, URI: "file:///a", Name: "a\x1b[2J"}}, "has a name that"},
		{"resource with both", []protocol.ContentBlock{{Type: protocol.ContentResource, URI: "file:///b", Text: "x", Blob: png}}, "exactly one of text and blob"},
		{"resource with neither", []protocol.ContentBlock{{Type: protocol.ContentResource, URI: "file:///b"}}, "exactly one of text and blob"},
		{"too many blocks", make([]protocol.ContentBlock, MaxBlocks+1), "the limit is 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.blocks)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check = %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Check = %v; want it to say %q", err, tc.want)
			}
		})
	}
}

func TestPlaceholder(t *testing.T) {
	for _, tc := range []struct {
		b    protocol.ContentBlock
		want string
	}{
		{protocol.ContentBlock{Type: protocol.ContentText, Text: "x"}, ""},
		{protocol.ContentBlock{Type: protocol.ContentImage, Data: png, MimeType: "image/png"}, "[image image/png, 8 bytes]"},
		{protocol.ContentBlock{Type: protocol.ContentAudio, Data: strings.Repeat("A", 4096), MimeType: "audio/wav"}, "[audio audio/wav, 3 KiB]"},
		{protocol.ContentBlock{Type: protocol.ContentResourceLink, URI: "file:///w/a.txt", Name: "a\x1b[2J.txt"}, "[resource link a.txt: file:///w/a.txt]"},
		{protocol.ContentBlock{Type: protocol.ContentResource, URI: "file:///w/b", Text: "hello", MimeType: "text/plain"}, "[resource file:///w/b text/plain, 5 bytes]"},
	} {
		if got := Placeholder(tc.b); got != tc.want {
			t.Errorf("Placeholder(%+v) = %q; want %q", tc.b, got, tc.want)
		}
	}
}

// FuzzCheck: what Check admits has a one-line placeholder free of escapes.
func FuzzCheck(f *testing.F) {
	f.Add("image", png, "image/png", "", "", "", "")
	f.Add("resource_link", "", "", "file:///a", "a", "", "")
	f.Add("resource", "", "", "file:///a", "", "t", "")
	f.Fuzz(func(t *testing.T, typ, data, mt, uri, name, text, blob string) {
		b := protocol.ContentBlock{Type: protocol.ContentType(typ), Data: data, MimeType: mt, URI: uri, Name: name, Text: text, Blob: blob}
		if Check([]protocol.ContentBlock{b}) != nil || b.Type == protocol.ContentText {
			return
		}
		p := Placeholder(b)
		if p == "" || strings.ContainsAny(p, "\n\x1b") {
			t.Fatalf("Placeholder(%+v) = %q", b, p)
		}
	})
}
