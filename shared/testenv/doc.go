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
//
// # Testing
//
//   - Unit tests per package, table-driven, with goldens in `testdata/`; `go test -race`.
//   - Conformance. `core/supervisor` drives deliberately broken hosts (`testdata/fakehosts/*.mjs`,
//     a few lines of JavaScript each, writing CWX1 by hand) through the real shim, one per failure:
//     each handshake refusal, crash, hang, protocol violation, oversized frame and flood, asserting the
//     tier's state and the reason it reports.
//   - End to end. `core` and `core/cli` run the shipped bundle under both runtimes, always through
//     the shim, with the fixture plugins of `testdata/plugins/` (tools, commands, config, crash in
//     activation or in a tool, hang, slow, dirty dispose, memory hog, name clash, refused approval, two
//     entries, and published DSH plugins), and the real `cwx` binary for the CLI.
//   - JS. `.ci/jshost-test` typechecks the host, runs its suites on Node and on Bun against the
//     committed `dist/` with a core simulated in the test harness, and fails when rebuilding `src/`
//     does not reproduce `dist/` byte for byte.
//   - Corpus and fuzz. The protocol corpus on both sides; fuzz targets for every parser that meets
//     outside input: frames, both message parsers, the wire encoder, config, manifests, tar entry
//     names, the tarball installer (in-memory tarballs through extraction, the tree scan and the
//     manifest checks), schema admission and input decoding, JSON canonicalization, the text
//     filters, and the files of `$CWX_HOME` another process may corrupt: `state.json` with its
//     receipts (`FuzzDecodeState`), catalog entries (`FuzzReadEntry`) and `probes.json` (`FuzzLoad`).
//     `make fuzz` runs each for `FUZZTIME` (60 s), one at a time; a finding lands in the
//     package's `testdata/fuzz/` and replays in every `go test` as a regression case.
//   - Soak. `core`'s `TestSoak` (`make soak`: 5 minutes per runtime; `make test`: 60 s under
//     `-race`; skipped unless `-soak=<d>` or `CWX_SOAK` is given) runs eight callers against four
//     fixture plugins on the plugin tier (it does not exercise the builtin tier) while a chaos loop
//     kills the runtime and the shim, disables and re-enables plugins through the real `cwx` binary,
//     rewrites a plugin's config and sends an input over the frame limit. Kills are paced under a
//     shortened crash budget (5 in 20 s), and once past it on purpose: the tier must be Failed, a call
//     answered NotAvailable at once, and Retry must bring the tools back. It fails on an untyped or
//     unexpected outcome, a call not returned, a process of an earlier incarnation alive 10 s after it
//     ended (by pid, process group or descent from its shim), an invalid state file, goroutines above
//     their baseline after Close, or a heap whose late median exceeds twice its early one plus 64 MiB.
//   - Rules. `make lint`, part of `make test`, runs the dependency test (`make deptest`,
//     `core/internal/deptest`) and the lock analyzers (`make lockcheck`, `core/internal/lockcheck`);
//     each has tests over deliberately broken code showing that it reports what it should. It also
//     runs the document checks (`make doccheck`, `core/internal/doccheck`): every citation of a
//     heading or a doc.go resolves, and no document but `CHANGELOG.md` names an issue.
//   - Runtimes. Tests find Node and Bun only through `CWX_TEST_NODE` and `CWX_TEST_BUN` (the
//     Makefile points them at the pinned copies in `.tools/bin`; the runtime lookup of core/runtime doc.go, “Runtimes” would
//     never pick a binary inside the checkout). A test runs on each runtime that is present and skips
//     per runtime; under `CI=true` a missing runtime fails the test.
//   - Timing. Exact bounds are asserted on fake clocks; tests with real processes assert order and
//     a generous bound. Benchmarks live in `go test -bench` and in `cwx bench` (`core/bench`, its
//     own fixture in a throwaway home) and are never timed assertions; measured figures are in
//     `BENCHMARKS.md`.
package testenv
