package plugins

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// validStateJSON is a state file as cwx writes it: one record, trusted, with a dev receipt's
// fields, a claim and a diagnostic.
const validStateJSON = `{
  "version": 1,
  "generation": 3,
  "plugins": {
    "hello": {
      "id": "hello", "version": "1.0.0", "kind": "plugin.json", "source": "/src/hello",
      "closure_sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
      "files": 2, "bytes": 10,
      "entries": [{"path": "dist/index.mjs", "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}],
      "installed_at": "2026-12-01T12:00:00Z", "enabled": true,
      "trust": {"closure_sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "policy_version": "cwx-activation-1",
        "trusted_at": "2026-12-01T12:00:00Z", "dev_pid": 42, "dev_session": "0123456789abcdef0123456789abcdef"},
      "claims": {"tools": ["greet"], "commands": []},
      "diagnostics": [{"time": "2026-12-01T12:00:00Z", "kind": "faulted", "message": "x"}]
    }
  }
}`

// TestDecodeStateRefusesHostileRecords: fields that name paths or decide trust must be what
// cwx writes; anything else is a *CorruptStateError naming the file.
func TestDecodeStateRefusesHostileRecords(t *testing.T) {
	if _, err := decodeState("state.json", []byte(validStateJSON)); err != nil {
		t.Fatalf("the valid state: %v", err)
	}
	const hash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, c := range []struct{ name, old, new, want string }{
		{"a closure that climbs", `"closure_sha256": "` + hash + `",
      "files"`, `"closure_sha256": "../../../../tmp/x",
      "files"`, "is not a sha256"},
		{"an entry outside the copy", `"dist/index.mjs"`, `"../../x.mjs"`, "does not stay inside"},
		{"an absolute entry", `"dist/index.mjs"`, `"/etc/passwd"`, "does not stay inside"},
		{"an unclean entry", `"dist/index.mjs"`, `"dist/./index.mjs"`, "does not stay inside"},
		{"a dev token that is a path", `"0123456789abcdef0123456789abcdef"`, `"../../state"`, "is not one cwx plugin dev makes"},
		{"a negative dev pid", `"dev_pid": 42`, `"dev_pid": -1`, "is not one cwx plugin dev makes"},
		{"an id install refuses", `"hello": {
      "id": "hello"`, `"host:hello": {
      "id": "host:hello"`, "starts with \"host:\""},
		{"an unknown kind", `"kind": "plugin.json"`, `"kind": "binary"`, "kind"},
		{"no entries", `"entries": [{"path": "dist/index.mjs", "sha256": "` + hash + `"}]`, `"entries": []`, "0 entries"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(validStateJSON, c.old) {
				t.Fatalf("the valid state lacks %q", c.old)
			}
			_, err := decodeState("/h/state.json", []byte(strings.Replace(validStateJSON, c.old, c.new, 1)))
			var ce *CorruptStateError
			if !errors.As(err, &ce) || ce.Path != "/h/state.json" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("decodeState: %v, want a corrupt state error with %q", err, c.want)
			}
		})
	}
}

// FuzzDecodeState: whatever bytes state.json holds, decoding never panics; it fails with a
// *CorruptStateError, or gives a state whose every record passes check and which encodes
// and decodes to the same state again (what cwx writes, it reads back).
func FuzzDecodeState(f *testing.F) {
	f.Add([]byte(validStateJSON))
	f.Add([]byte(validStateJSON[:len(validStateJSON)/2]))
	f.Add([]byte(`{"version":1,"generation":0,"plugins":{}}`))
	f.Add([]byte(`{"version":1,"plugins":{"a":null}}`))
	f.Add([]byte(`{"version":1,"plugins":{"a":{"id":"a"}}} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeState("state.json", data)
		if err != nil {
			var ce *CorruptStateError
			if !errors.As(err, &ce) || !errors.Is(err, ErrCorruptState) {
				t.Fatalf("not a corrupt state error: %v", err)
			}
			return
		}
		for id, r := range st.Plugins {
			if r.ID != id || r.check() != nil {
				t.Fatalf("accepted record %q: %v", id, r.check())
			}
		}
		again, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		st2, err := decodeState("state.json", again)
		if err != nil {
			t.Fatalf("a decoded state does not decode after encoding: %v\n%s", err, again)
		}
		if third, _ := json.Marshal(st2); string(third) != string(again) {
			t.Fatalf("the state changed across a round trip:\n%s\n%s", again, third)
		}
	})
}
