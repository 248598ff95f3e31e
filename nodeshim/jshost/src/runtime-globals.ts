// The globals the host touches that @types/node does not declare: Bun's runtime object (present
// only under Bun) and the engine-level constructors a runtime may or may not have. Declaring them
// here, as the runtimes define them, lets the rest of the host read them without casts.

/** BunPluginBuilder is the part of Bun's plugin builder the module resolution uses. */
export interface BunPluginBuilder {
  module(specifier: string, cb: () => { exports: Record<string, unknown>; loader: 'object' }): void;
  onResolve(opts: { filter: RegExp }, cb: (args: { path: string }) => unknown): void;
  onLoad(opts: { filter: RegExp }, cb: (args: { path: string }) => unknown): void;
}

/** BunRuntime is the part of the `Bun` global the host uses. */
export interface BunRuntime {
  plugin(p: { name: string; target: 'bun'; setup(build: BunPluginBuilder): void }): void;
  readonly stdout: unknown;
  readonly stderr: unknown;
  readonly FFI: { readonly dlopen: unknown };
}

declare global {
  var Bun: BunRuntime | undefined;
  var Worker: (new (url: string) => unknown) | undefined;
  var ShadowRealm: unknown;
}
