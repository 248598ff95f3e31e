// Package testenv gives tests the JavaScript runtimes they need and checks that they leave
// no process behind.
//
// Runtimes are found only through CWX_TEST_NODE and CWX_TEST_BUN (the Makefile points them
// at .tools/bin after `make tools`). Outside CI a missing runtime skips the test; under
// CI=true it fails it, so a green CI run always exercised both runtimes.
//
// [Main] wraps a package's TestMain: it stamps the environment with a per-run marker
// (CWX_TEST_RUN_MARKER) that every process the tests start inherits or is given, and after
// the tests scans /proc for processes still carrying it, failing the run if any is alive.
package testenv
