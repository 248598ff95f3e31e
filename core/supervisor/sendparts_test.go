package supervisor

import (
	"bytes"
	"context"
	"testing"

	"github.com/cwx-dev/cwx/shared"
)

// TestSendPartsIsOnePayload: pieces given to Channel.SendParts (a result's text and its
// attachment) cross the shim as the one payload they make joined, parts of PartSize cut
// across the pieces' edges, an empty piece included. A verbatim echo (cat) sends it back.
func TestSendPartsIsOnePayload(t *testing.T) {
	ch, _, _, stop := rawShim(t, []string{"/bin/sh", "-c", "exec cat <&3 >&4"}, false)
	defer stop()
	text := []byte(`{"jsonrpc":"2.0","id":1,"result":{"eof":true}}` + "\x00")
	body := make([]byte, 2*shared.PartSize+12345)
	for i := range body {
		body[i] = byte(i % 251)
	}
	for _, pieces := range [][][]byte{
		{text, body},
		{text, nil, body[:shared.PartSize-len(text)], body[shared.PartSize-len(text):]},
		{text},
	} {
		want := bytes.Join(pieces, nil)
		if err := ch.SendParts(context.Background(), pieces...); err != nil {
			t.Fatal(err)
		}
		got, err := ch.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("echoed %d bytes, want the %d of the pieces joined", len(got), len(want))
		}
	}
}
