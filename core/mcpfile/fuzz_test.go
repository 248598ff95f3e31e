package mcpfile

import (
	"errors"
	"testing"
)

// FuzzDecode: any bytes decode to a file or to ErrFile, and a decoded file expands to
// servers or to ErrFile, never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{claudeFile, vscodeFile, `{"mcpServers": {"a": {"command": "${A:-b}"}}}`, `{"servers": {}}`, `{}`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrFile) {
				t.Fatalf("decode error %v is not ErrFile", err)
			}
			return
		}
		es, err := file.Expand(Vars{Lookup: env("A", "1"), WorkspaceFolder: "/w"})
		if err != nil {
			if !errors.Is(err, ErrFile) {
				t.Fatalf("expand error %v is not ErrFile", err)
			}
			return
		}
		if len(es) != len(file.Servers) {
			t.Fatalf("%d servers expanded of %d", len(es), len(file.Servers))
		}
	})
}
