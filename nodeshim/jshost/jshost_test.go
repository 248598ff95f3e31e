package jshost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestEmbeddedFilesEqualDist(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []byte
	}{
		{BundleName, Bundle()},
		{LicensesName, Licenses()},
		{"builtin-modules.json", BuiltinModulesJSON()},
		{"provided-modules.json", ProvidedModulesJSON()},
		{"compatibility.json", CompatibilityJSON()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("dist", tc.name))
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.got) == 0 || !bytes.Equal(tc.got, want) {
				t.Fatalf("embedded %s (%d bytes) differs from dist/ (%d bytes)", tc.name, len(tc.got), len(want))
			}
		})
	}
}

func TestBundleSHA256(t *testing.T) {
	sum := sha256.Sum256(Bundle())
	if got, want := BundleSHA256(), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("BundleSHA256() = %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(BundleSHA256()) {
		t.Fatalf("digest %q is not lower-case hex", BundleSHA256())
	}
}

func TestBuiltinModulesMatchTheirBytes(t *testing.T) {
	mods, err := BuiltinModules()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(mods, func(a, b ModuleDigest) int { return strings.Compare(a.ID, b.ID) }) {
		t.Fatalf("modules not sorted by id: %v", mods)
	}
	for _, m := range mods {
		b, err := BuiltinModule(m.ID)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != m.SHA256 {
			t.Errorf("module %s: table says %s", m.ID, m.SHA256)
		}
		// the host reports the same table in host/hello: the build defines it into the bundle
		if !strings.Contains(string(Bundle()), `id: "`+m.ID+`", sha256: "`+m.SHA256+`"`) {
			t.Errorf("module %s: the host bundle does not carry its digest %s", m.ID, m.SHA256)
		}
	}
	// every embedded module file is in the table
	entries, err := fs.ReadDir(dist, builtinDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if len(entries) != len(mods) {
		t.Fatalf("%d files under %s, %d in the table", len(entries), builtinDir, len(mods))
	}
}

func TestBuiltinModuleRejectsPaths(t *testing.T) {
	for _, id := range []string{"", "../LICENSES", "a/b", "missing"} {
		if _, err := BuiltinModule(id); err == nil {
			t.Errorf("BuiltinModule(%q) succeeded", id)
		}
	}
}

func TestProvidedModules(t *testing.T) {
	p, err := Provided()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"@deepseek-ai/cordis", "@deepseek-ai/schemastery", "@deepseek-ai/cosmokit", "cosmokit", "@deepseek-ai/dsh-tools", "@deepseek-ai/dsh-util-values", "@deepseek-ai/dsh-commands/brand"} {
		if !slices.Contains(p.Provided, want) {
			t.Errorf("provided-modules.json lacks %s", want)
		}
	}
	if len(p.Refused) == 0 {
		t.Error("provided-modules.json lists no refused patterns")
	}
}

// Every package whose code esbuild marked in the bundle has a section in LICENSES.txt; the check
// reads the bundle itself rather than trusting the generator.
func TestEveryBundledPackageHasANotice(t *testing.T) {
	marker := regexp.MustCompile(`(?m)^// node_modules/((?:@[^/]+/)?[^/]+)/`)
	found := map[string]bool{}
	for _, m := range marker.FindAllSubmatch(Bundle(), -1) {
		found[string(m[1])] = true
	}
	if len(found) == 0 {
		t.Fatal("no node_modules markers in the bundle: did the build minify?")
	}
	notices := string(Licenses())
	for pkg := range found {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(pkg) + `@\S+ \(`).MatchString(notices) {
			t.Errorf("bundled package %s has no section in %s", pkg, LicensesName)
		}
	}
}

// TestCompatibilityShippedVerbatim: the build copies the table byte for byte, so the digest a
// review shows is the digest of the source file.
func TestCompatibilityShippedVerbatim(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("src", "dsh", "compatibility.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, CompatibilityJSON()) {
		t.Fatal("dist/compatibility.json differs from src/dsh/compatibility.json: run the build (npm run build)")
	}
}
