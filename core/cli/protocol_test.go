package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestProtocolCheck(t *testing.T) {
	t.Chdir(filepath.Join("..", "..")) // paths in the goldens are relative to the repository
	corpus, err := filepath.Glob("testdata/protocol/*.json")
	if err != nil || len(corpus) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		golden   string
	}{
		{"corpus agrees", append([]string{"protocol", "check"}, corpus...), ExitOK, "protocol-check.golden"},
		{"corpus json", append([]string{"protocol", "check", "--json"}, corpus...), ExitOK, "protocol-check-json.golden"},
		{"tier flag", []string{"protocol", "check", "--tier", "plugin",
			"testdata/protocol/001-host-hello.json", "testdata/protocol/142-harness-run-on-plugin-tier.json",
			"testdata/protocol/021-net-fetch.json"}, ExitOK, "protocol-check-tier.golden"},
		{"disagreement", []string{"protocol", "check",
			"testdata/cli/protocol-check-disagree.json", "testdata/cli/protocol-check-wrong-reason.json",
			"testdata/protocol/003-host-ready.json"}, ExitInvalid, "protocol-check-disagree.golden"},
		{"disagreement json", []string{"protocol", "check", "--json",
			"testdata/cli/protocol-check-disagree.json", "testdata/cli/protocol-check-wrong-reason.json"}, ExitInvalid,
			"protocol-check-disagree-json.golden"},
		{"unreadable", []string{"protocol", "check",
			"testdata/cli/protocol-check-not-a-case.json", "testdata/cli/protocol-check-missing.json",
			"testdata/cli/protocol-check-disagree.json"}, ExitUsage, "protocol-check-unreadable.golden"},
		{"bad tier", []string{"protocol", "check", "--tier", "root", "testdata/protocol/003-host-ready.json"}, ExitUsage, ""},
		{"no files", []string{"protocol", "check"}, ExitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := NewRootCommand(bytes.NewReader(nil), &stdout, &stderr)
			root.SetArgs(tt.args)
			err := root.Execute()
			if got := exitCode(err); got != tt.wantCode {
				t.Fatalf("exit code %d (%v), want %d\nstdout:\n%s", got, err, tt.wantCode, stdout.String())
			}
			if tt.golden != "" {
				protocolGolden(t, filepath.Join("testdata", "cli", tt.golden), stdout.Bytes())
			}
		})
	}
}

func protocolGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if os.Getenv("CWX_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (re-record with CWX_UPDATE_GOLDEN=1)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (re-record with CWX_UPDATE_GOLDEN=1):\n%s", path, got)
	}
}
