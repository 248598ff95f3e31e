package core

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/runtime"
	"github.com/cwx-dev/cwx/core/snapshot"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// The host snapshot, built once per test process and linked into every Node env's home, so
// that each test's first start does not build its own (ARCHITECTURE.md, “Host snapshot”).
var seed struct {
	once sync.Once
	dir  string
	blob *snapshot.Blob
	err  error
}

// seedSnapshot links the process's snapshot of node into home's snapshot folder.
func seedSnapshot(t testing.TB, home, node string) {
	t.Helper()
	seed.once.Do(func() {
		if seed.dir, seed.err = os.MkdirTemp("", "cwx-snapshot-seed-"); seed.err != nil {
			return
		}
		var res runtime.Resolution
		if res, seed.err = runtime.Resolve(context.Background(), runtime.Options{Kind: runtime.KindNode, NodePath: node}); seed.err != nil {
			return
		}
		o, why := snapshot.For(seed.dir, config.ExtensionHost{Snapshot: config.SnapshotAuto}, res.Chosen, jshost.BundleSHA256())
		if why != "" {
			return // no snapshot on this platform: every env starts from the bundle
		}
		seed.blob, seed.err = snapshot.Prepare(context.Background(), o)
	})
	if seed.err != nil {
		t.Fatalf("build the test snapshot: %v", seed.err)
	}
	if seed.blob == nil {
		return
	}
	dir := snapshot.Dir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".blob", ".json"} {
		from := filepath.Join(snapshot.Dir(seed.dir), seed.blob.Key+ext)
		if err := os.Link(from, filepath.Join(dir, seed.blob.Key+ext)); err != nil {
			t.Fatal(err)
		}
	}
}
