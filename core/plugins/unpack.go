package plugins

import (
	"os"
	"path/filepath"
)

// Unpack reads the package at src without installing it: a folder is returned as it is
// (symlinks to it resolved); a .tgz is unpacked, with every refusal of [Store.Install],
// into a private folder under $CWX_HOME/plugins/.tmp/. It returns the package's root and a
// function that removes what it unpacked (a no-op for a folder). Nothing is recorded.
// core/dshbundle reads a bundle package this way before its rows are installed.
func (s *Store) Unpack(src string) (string, func(), error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", nil, err
	}
	if fi.IsDir() {
		return abs, func() {}, nil
	}
	tgz, err := isTarball(abs)
	if err != nil {
		return "", nil, err
	}
	if !tgz {
		return "", nil, &RefusalError{Source: src, Reason: "is neither a folder nor a gzip-compressed tarball (.tgz)"}
	}
	if err := os.MkdirAll(s.layout.tmpDir(), 0o700); err != nil {
		return "", nil, err
	}
	work, err := os.MkdirTemp(s.layout.tmpDir(), "unpack-*")
	if err != nil {
		return "", nil, err
	}
	root, err := extractTarball(src, abs, work, s.limits)
	if err != nil {
		_ = removeTree(work)
		return "", nil, err
	}
	return root, func() { _ = removeTree(work) }, nil
}

// Limits returns the store's bounds on a package (files, bytes).
func (s *Store) Limits() Limits { return s.limits }
