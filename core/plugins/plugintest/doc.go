// Package plugintest builds plugin packages for tests: folders, crafted tarballs (including
// the malformed ones install must refuse), and the real npm-packed tarballs listed in
// testdata/npm/tarballs.txt, fetched with `npm pack` into the git-ignored testdata/.cache/
// and checked against their recorded sha512. Under CI=true a tarball that cannot be
// obtained fails the test; elsewhere it skips it.
package plugintest
