// Package testenv gives tests the JavaScript runtimes they need and checks that they leave
// no process and no goroutine behind.
//
// Runtimes are found only through CWX_TEST_NODE and CWX_TEST_BUN (the Makefile points them
// at .tools/bin after `make tools`). A table test ranges over [Runtimes] and calls
// [Lookup.Get] inside each subtest, so a runtime that is present runs even when the other
// is missing. Outside CI a missing runtime skips its own (sub)test; when CI is set (to
// anything but "", "0" or "false") it fails it, so a green CI run exercised both runtimes.
// .ci/run sets CI=true.
//
// [Main] wraps a package's TestMain: it stamps the environment with a per-run marker
// (CWX_TEST_RUN_MARKER) that every process the tests start inherits or is given, and after
// the tests scans /proc for processes still carrying it, failing the run if any is alive;
// then it fails the run if goleak finds a goroutine the tests left running.
//
// The package sits at the module's root so that every package's tests can use it: those
// of nodeshim and examples as well as those under core.
package testenv
