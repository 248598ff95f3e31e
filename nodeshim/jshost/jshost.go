package jshost

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sync"
)

//go:embed dist
var dist embed.FS

const (
	// BundleName is the bundle's file name; materialized copies keep it.
	BundleName = "cwx-extension-host.mjs"
	// SnapshotEntryName is the bundle's CommonJS twin a Node startup snapshot is built from
	// (src/snapshot.ts; ARCHITECTURE.md, “Host snapshot”).
	SnapshotEntryName = "cwx-extension-host-snapshot.cjs"
	// BunEntryName is the bundle's CommonJS twin Bun's bytecode cache is built from
	// (src/main.ts as CommonJS; ARCHITECTURE.md, “Host snapshot”).
	BunEntryName = "cwx-extension-host-bun.cjs"
	// LicensesName is the notices file written beside the bundle.
	LicensesName = "LICENSES.txt"

	bundlePath   = "dist/" + BundleName
	licensesPath = "dist/" + LicensesName
	snapshotPath = "dist/" + SnapshotEntryName
	bunEntryPath = "dist/" + BunEntryName
	modulesPath  = "dist/builtin-modules.json"
	providedPath = "dist/provided-modules.json"
	compatPath   = "dist/compatibility.json"
	builtinDir   = "dist/builtin"
)

// ModuleDigest is one built-in module the host embeds, as host/hello reports it.
type ModuleDigest struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// ProvidedModules lists the import specifiers the host serves itself (one copy for every
// plugin) and the patterns it refuses; everything else a plugin imports must ship with it.
type ProvidedModules struct {
	Provided []string `json:"provided"`
	Refused  []string `json:"refused"`
}

func mustRead(name string) []byte {
	b, err := dist.ReadFile(name)
	if err != nil {
		// the file list is fixed at build time and checked by this package's tests
		panic(fmt.Sprintf("jshost: embedded %s missing: %v", name, err))
	}
	return b
}

// Bundle returns the bundle's bytes. The slice is shared: do not modify it.
func Bundle() []byte { return mustRead(bundlePath) }

var digest = sync.OnceValue(func() string {
	sum := sha256.Sum256(Bundle())
	return hex.EncodeToString(sum[:])
})

// BundleSHA256 is the lower-case hex sha256 of Bundle(), the digest host/hello must report.
func BundleSHA256() string { return digest() }

// SnapshotEntry returns the snapshot entry's bytes: the same host as Bundle(), as one CommonJS
// script whose startup-snapshot main function starts it. The slice is shared: do not modify it.
func SnapshotEntry() []byte { return mustRead(snapshotPath) }

var snapshotDigest = sync.OnceValue(func() string {
	sum := sha256.Sum256(SnapshotEntry())
	return hex.EncodeToString(sum[:])
})

// SnapshotEntrySHA256 is the lower-case hex sha256 of SnapshotEntry(), the digest host/hello
// reports when the host started from a snapshot built from it.
func SnapshotEntrySHA256() string { return snapshotDigest() }

// BunEntry returns the Bun entry's bytes: the same host as Bundle(), as one CommonJS script
// that `bun build --bytecode` compiles. The slice is shared: do not modify it.
func BunEntry() []byte { return mustRead(bunEntryPath) }

var bunEntryDigest = sync.OnceValue(func() string {
	sum := sha256.Sum256(BunEntry())
	return hex.EncodeToString(sum[:])
})

// BunEntrySHA256 is the lower-case hex sha256 of BunEntry(), the digest host/hello reports
// when the host runs Bun's build of it with its bytecode.
func BunEntrySHA256() string { return bunEntryDigest() }

// Licenses returns the third-party licence notices of the code bundled in Bundle().
func Licenses() []byte { return mustRead(licensesPath) }

// BuiltinModulesJSON returns dist/builtin-modules.json as embedded.
func BuiltinModulesJSON() []byte { return mustRead(modulesPath) }

// ProvidedModulesJSON returns dist/provided-modules.json as embedded.
func ProvidedModulesJSON() []byte { return mustRead(providedPath) }

// CompatibilityJSON returns dist/compatibility.json as embedded: the pinned DSH
// compatibility table the host enforces (which services a plugin may inject, grouped by who
// declares them, and which it may never provide). core/plugins decodes it; its sha256 is part
// of every review.
func CompatibilityJSON() []byte { return mustRead(compatPath) }

// BuiltinModules returns dist/builtin-modules.json decoded: the built-in modules the build
// bundled, [{id, sha256}] sorted by id, each sha256 the digest of dist/builtin/<id>.mjs. An id
// listed twice or out of order is an error (the build never writes one).
func BuiltinModules() ([]ModuleDigest, error) {
	var out []ModuleDigest
	if err := json.Unmarshal(BuiltinModulesJSON(), &out); err != nil {
		return nil, fmt.Errorf("jshost: decoding %s: %w", modulesPath, err)
	}
	for i := 1; i < len(out); i++ {
		if out[i-1].ID >= out[i].ID {
			return nil, fmt.Errorf("jshost: %s is not sorted by id, or lists %q twice", modulesPath, out[i].ID)
		}
	}
	if out == nil {
		out = []ModuleDigest{}
	}
	return out, nil
}

// BuiltinModule returns the source of one built-in module by id.
func BuiltinModule(id string) ([]byte, error) {
	if id == "" || path.Base(id) != id {
		return nil, fmt.Errorf("jshost: invalid built-in module id %q", id)
	}
	b, err := fs.ReadFile(dist, builtinDir+"/"+id+".mjs")
	if err != nil {
		return nil, fmt.Errorf("jshost: built-in module %q: %w", id, err)
	}
	return b, nil
}

// Provided returns the decoded dist/provided-modules.json.
func Provided() (ProvidedModules, error) {
	var p ProvidedModules
	if err := json.Unmarshal(ProvidedModulesJSON(), &p); err != nil {
		return ProvidedModules{}, fmt.Errorf("jshost: decoding %s: %w", providedPath, err)
	}
	return p, nil
}
