package content

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Bounds of a result's blocks.
const (
	MaxBlocks     = 64
	MaxBlockData  = 4 << 20 // characters of one block's base64 data or blob, bytes of its text
	MaxResultData = 8 << 20 // all blocks of one result together
	MaxURI        = 2048
	MaxName       = 256
)

var (
	mimeRE   = lazyre.New(`^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$`)
	schemeRE = lazyre.New(`^[A-Za-z][A-Za-z0-9+.-]{0,31}:`)
)

// Check applies the policy to a result's blocks; the error names the first block refused
// and why.
func Check(blocks []protocol.ContentBlock) error {
	if len(blocks) > MaxBlocks {
		return fmt.Errorf("the result has %d content blocks; the limit is %d", len(blocks), MaxBlocks)
	}
	total := 0
	for i, b := range blocks {
		n, why := check(b)
		if why != "" {
			return fmt.Errorf("content block %d (%s) %s", i+1, typeName(b.Type), why)
		}
		if total += n; total > MaxResultData {
			return fmt.Errorf("the result's images, audio and resources add up to more than %d bytes; return a resource_link instead", MaxResultData)
		}
	}
	return nil
}

// check returns the bytes a block counts against MaxResultData, or why it is refused.
func check(b protocol.ContentBlock) (int, string) {
	switch b.Type {
	case protocol.ContentText:
		return 0, ""
	case protocol.ContentImage, protocol.ContentAudio:
		if !strings.HasPrefix(b.MimeType, string(b.Type)+"/") {
			return 0, fmt.Sprintf("has mime_type %q; it must be %s/…", cut(b.MimeType), b.Type)
		}
		if why := mime(b.MimeType); why != "" {
			return 0, why
		}
		return len(b.Data), data("data", b.Data)
	case protocol.ContentResourceLink:
		if why := uri(b.URI); why != "" {
			return 0, why
		}
		if why := plain("name", b.Name, MaxName); why != "" {
			return 0, why
		}
		return 0, optionalMime(b.MimeType)
	case protocol.ContentResource:
		if why := uri(b.URI); why != "" {
			return 0, why
		}
		if why := optionalMime(b.MimeType); why != "" {
			return 0, why
		}
		switch {
		case (b.Text == "") == (b.Blob == ""):
			return 0, "needs exactly one of text and blob"
		case b.Blob != "":
			return len(b.Blob), data("blob", b.Blob)
		case len(b.Text) > MaxBlockData:
			return 0, fmt.Sprintf("has %d bytes of text; the limit is %d (return a resource_link instead)", len(b.Text), MaxBlockData)
		}
		return len(b.Text), ""
	}
	return 0, "is not a type cwx carries: text, image, audio, resource_link or resource"
}

func data(field, s string) string {
	switch {
	case s == "":
		return fmt.Sprintf("has no %s", field)
	case len(s) > MaxBlockData:
		return fmt.Sprintf("has %d characters of %s; the limit is %d (return a resource_link instead)", len(s), field, MaxBlockData)
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		return fmt.Sprintf("has %s that is not standard base64: %v", field, err)
	}
	return ""
}

func mime(m string) string {
	if !mimeRE().MatchString(m) {
		return fmt.Sprintf("has mime_type %q, which is not a lower-case type/subtype", cut(m))
	}
	return ""
}

func optionalMime(m string) string {
	if m == "" {
		return ""
	}
	return mime(m)
}

func uri(u string) string {
	if why := plain("uri", u, MaxURI); why != "" {
		return why
	}
	if !schemeRE().MatchString(u) || strings.ContainsAny(u, " \t\n") {
		return fmt.Sprintf("has uri %q, which is not an absolute URI with a scheme", cut(u))
	}
	return ""
}

func plain(field, s string, max int) string {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Sprintf("has an empty %s", field)
	case len(s) > max:
		return fmt.Sprintf("has a %s of %d bytes; the limit is %d", field, len(s), max)
	}
	if err := inert.Check(s); err != nil {
		return fmt.Sprintf("has a %s that %v", field, err)
	}
	return ""
}

func typeName(t protocol.ContentType) string {
	if t == "" {
		return "no type"
	}
	return cut(string(t))
}

func cut(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Placeholder is the one line a terminal shows for a non-text block, "" for a text block:
// `[image image/png, 12 KiB]`, `[resource link a.txt: file:///…]`. Plugin text in it is
// stripped of what could drive the terminal.
func Placeholder(b protocol.ContentBlock) string {
	switch b.Type {
	case protocol.ContentText:
		return ""
	case protocol.ContentImage, protocol.ContentAudio:
		return fmt.Sprintf("[%s %s, %s]", b.Type, inert.Strip(b.MimeType), size(decoded(b.Data)))
	case protocol.ContentResourceLink:
		return fmt.Sprintf("[resource link %s: %s]", inert.Strip(b.Name), inert.Strip(b.URI))
	case protocol.ContentResource:
		n := len(b.Text)
		if b.Blob != "" {
			n = decoded(b.Blob)
		}
		m := ""
		if b.MimeType != "" {
			m = " " + inert.Strip(b.MimeType)
		}
		return fmt.Sprintf("[resource %s%s, %s]", inert.Strip(b.URI), m, size(n))
	}
	return fmt.Sprintf("[content of type %s]", inert.Strip(cut(string(b.Type))))
}

// decoded is how many bytes the standard base64 s holds.
func decoded(s string) int {
	return len(s)/4*3 - (len(s) - len(strings.TrimRight(s, "=")))
}

func size(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
