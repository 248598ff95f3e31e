package runtime

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cwx-dev/cwx/core/seccomp/seccomptest"
	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestMain(m *testing.M) {
	seccomptest.Main() // the seccomp probe, when TestSeccompUnderTheProfile starts this binary as one
	os.Exit(testenv.Main(m))
}

// fakeBin writes an executable shell script named name into dir (created as needed) and
// returns its path.
func fakeBin(t *testing.T, dir, name, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// versionScript prints v for --version and accepts nothing else.
func versionScript(v string) string {
	return `for a in "$@"; do [ "$a" = --version ] && { echo ` + v + `; exit 0; }; done; exit 9`
}
