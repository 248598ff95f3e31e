package mcpclient

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestRawSchemas: the handler gets back the bytes the server wrote (its field order) of the
// schema the SDK decoded into a map; a schema never noted is encoded again, and the kept
// ones are bounded.
func TestRawSchemas(t *testing.T) {
	var r rawSchemas
	const wrote = `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number","default":1.50}}}`
	r.note(json.RawMessage(`{"message":"m","requestedSchema":` + wrote + `}`))
	var decoded any
	if err := json.Unmarshal([]byte(wrote), &decoded); err != nil {
		t.Fatal(err)
	}
	if got := string(r.take(decoded)); got != wrote {
		t.Fatalf("take = %s, want the bytes as written", got)
	}
	if got := string(r.take(decoded)); got == wrote {
		t.Fatalf("taken twice: %s", got)
	}
	for i := range maxRawSchemas + 3 {
		r.note(json.RawMessage(fmt.Sprintf(`{"requestedSchema":{"type":"object","title":"%d"}}`, i)))
	}
	if n := len(r.pending); n != maxRawSchemas {
		t.Fatalf("%d schemas kept, want %d", n, maxRawSchemas)
	}
	if r.take(nil) != nil {
		t.Fatal("no schema became one")
	}
}
