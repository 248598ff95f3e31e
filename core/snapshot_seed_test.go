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

// The host snapshot of each real Node binary, built once per test process and linked into
// every env's home, so that each test's first start does not build its own (ARCHITECTURE.md,
// “Host snapshot”).
var seed struct {
	mu    sync.Mutex
	dir   string
	blobs map[string]*snapshot.Blob // by Node path; nil for a binary that is no usable Node
}

// seedSnapshot links the process's snapshot of node into home's snapshot folder. A path that
// is no usable Node (a test's deliberately missing or fake runtime) gets none: that test's
// own start says why.
func seedSnapshot(t testing.TB, home, node string) {
	t.Helper()
	b := seedBlob(t, node)
	if b == nil {
		return
	}
	dir := snapshot.Dir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".blob", ".json"} {
		from := filepath.Join(snapshot.Dir(seed.dir), b.Key+ext)
		if err := os.Link(from, filepath.Join(dir, b.Key+ext)); err != nil {
			t.Fatal(err)
		}
	}
}

func seedBlob(t testing.TB, node string) *snapshot.Blob {
	t.Helper()
	seed.mu.Lock()
	defer seed.mu.Unlock()
	if b, done := seed.blobs[node]; done {
		return b
	}
	if seed.blobs == nil {
		seed.blobs = map[string]*snapshot.Blob{}
	}
	if seed.dir == "" {
		d, err := os.MkdirTemp("", "cwx-snapshot-seed-")
		if err != nil {
			t.Fatal(err)
		}
		seed.dir = d
	}
	seed.blobs[node] = nil
	res, err := runtime.Resolve(context.Background(), runtime.Options{Kind: runtime.KindNode, NodePath: node})
	if err != nil {
		return nil
	}
	o, why := snapshot.For(seed.dir, config.ExtensionHost{Snapshot: config.SnapshotAuto}, res.Chosen, jshost.BundleSHA256())
	if why != "" {
		return nil // no snapshot on this platform: every env starts from the bundle
	}
	b, err := snapshot.Prepare(context.Background(), o)
	if err != nil {
		t.Fatalf("build the test snapshot: %v", err)
	}
	seed.blobs[node] = b
	return b
}
