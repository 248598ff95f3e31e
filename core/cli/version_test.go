package cli

import (
	"encoding/json"
	"regexp"
	"runtime"
	"testing"

	"github.com/cwx-dev/cwx/core/bundle"
)

// TestVersionPrintsTheBundleDigest: `cwx version` prints the embedded bundle's digest, the
// one host/hello must report, in text and in --json.
func TestVersionPrintsTheBundleDigest(t *testing.T) {
	sum := bundle.EmbeddedSHA256()
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(sum) {
		t.Fatalf("embedded digest %q", sum)
	}
	norm := func(s string) []byte {
		return []byte(normalize(s, sum, "<bundle sha256>", runtime.Version(), "<go version>"))
	}
	checkGolden(t, "version.golden", norm(mustCLI(t, "version")))
	out := mustCLI(t, "version", "--json")
	checkGolden(t, "version-json.golden", norm(out))
	var v VersionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Bundle != sum {
		t.Fatalf("--json bundle %q, %v; want %s", v.Bundle, err, sum)
	}
}
