// Package jshost carries the JS extension host as data: the committed, reproducible build in
// dist/ of the TypeScript sources next to this file (src/, built by `npm run build`).
//
// The bundle (dist/cwx-extension-host.mjs) is the process that runs plugin code under Node or
// Bun: a Cordis 4 root with the tools, commands, logger and timer services, speaking CWX1
// JSON-RPC on its stdio. This package only embeds dist/ and exposes the bundle's bytes and
// sha256 digest, its third-party licence notices, the built-in module table the host reports
// in host/hello with the module files (dist/builtin/<id>.mjs), and the module specifiers the host resolves itself (which the
// plugin installer needs to decide what a package must bundle). It has no behaviour of its own
// and imports nothing of the core; core/bundle materializes the bytes on disk.
//
// `.ci/jshost-test` (run by `make test`) rebuilds dist/ into a temporary directory and fails
// when it differs from the committed copy, then runs the JS suites on Node and on Bun.
package jshost
