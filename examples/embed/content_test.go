package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// TestEmbedRichContent: a plugin tool's images, audio, resource links and embedded resources
// reach the embedder as content blocks and its terminal as placeholder lines; a block of a
// type cwx does not carry, or over the size cap, fails the call saying so.
func TestEmbedRichContent(t *testing.T) {
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n", rt.Name, rt.Name, rt.Path)
			dir := homeWith(t, conf, filepath.Join("..", "..", "testdata", "plugins", "rich-content"))
			cases := []struct {
				tool   string
				code   int
				stdout string
				stderr string
			}{
				{"show_rich", exitOK, "result   a picture and friends\n[image image/png, 8 bytes]\n[audio audio/wav, 4 bytes]\n" +
					"[resource link notes.txt: file:///w/notes.txt]\n[resource file:///w/inline.txt text/plain, 6 bytes]\n", ""},
				{"show_video", exitPlugin, "", "render returned content block 1, of type \"video\"; cwx carries text, image, audio, resource_link and resource blocks"},
				{"big_image", exitPlugin, "", "content block 1 (image) has 4194308 characters of data; the limit is 4194304 (return a resource_link instead)"},
			}
			for _, c := range cases {
				t.Run(c.tool, func(t *testing.T) {
					var out, errb bytes.Buffer
					code := run(context.Background(), []string{"-home", dir, "-allow", c.tool, c.tool}, &out, &errb)
					if code != c.code || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errb.String(), c.stderr) {
						t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s\nwant stdout %q, stderr %q", code, c.code, out.String(), errb.String(), c.stdout, c.stderr)
					}
				})
			}
		})
	}
}

// TestRichContentBlocks: the example's Manager hands the blocks over as they are.
func TestRichContentBlocks(t *testing.T) {
	rt := testenv.Runtimes()[0].Get(t)
	conf := fmt.Sprintf("[extension_host]\nruntime = %q\n%s = %q\n", rt.Name, rt.Name, rt.Path)
	dir := homeWith(t, conf, filepath.Join("..", "..", "testdata", "plugins", "rich-content"))
	ctx := context.Background()
	m, err := core.Open(ctx, core.Options{Home: dir, Approval: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	if err := m.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := m.CallTool(ctx, "show_rich", nil, core.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []core.ContentBlock{
		{Type: core.ContentText, Text: "a picture and friends"},
		{Type: core.ContentImage, Data: "iVBORw0KGgo=", MimeType: "image/png"},
		{Type: core.ContentAudio, Data: "UklGRg==", MimeType: "audio/wav"},
		{Type: core.ContentResourceLink, URI: "file:///w/notes.txt", Name: "notes.txt", MimeType: "text/plain"},
		{Type: core.ContentResource, URI: "file:///w/inline.txt", MimeType: "text/plain", Text: "inline"},
	}
	if fmt.Sprint(res.Content) != fmt.Sprint(want) {
		t.Fatalf("content = %+v\nwant %+v", res.Content, want)
	}
}
