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
//
// # Types that hold
//
// The sources prove their types instead of asserting them: a value from outside (decoded JSON,
// a plugin's object, an error, an undeclared runtime internal) is read as unknown and narrowed
// with a type guard (validate.ts isPlainObject, activate.ts isSchema, storage.ts errnoCode), a
// captured built-in gets its receiver and result from a typed constant it is first assigned to
// (primordials.ts), and an indexed read under noUncheckedIndexedAccess is checked, not
// asserted with `!`. Two type assertions remain, both where the RPC peer's validator has
// already checked the value against the generated method table: validate.ts acceptInbound (a
// validated message from the core becomes Inbound) and rpc.ts request (a validated result
// becomes the result type of the method it answers). scripts/count-assertions.mjs counts them
// with the TypeScript parser (`as T` and `<T>x` but not `as const`, and `x!` with definite
// assignment; protocol.generated.ts and cordis-adapter.ts left out) and `npm run typecheck`
// fails above 2 type assertions or any non-null assertion; `npm run assertions` lists them.
package jshost
