// Entry point of a Node startup snapshot of the host (bundled to
// dist/cwx-extension-host-snapshot.cjs; ARCHITECTURE.md, “Host snapshot”). The core builds the
// snapshot with `node --snapshot-blob <blob> --build-snapshot <this file>`: every module of the
// host is evaluated then, and its heap is what a host started with `--snapshot-blob` begins
// from. Nothing runs at build time but module bodies; no plugin code is ever in the snapshot.
//
// At build time this reads and hashes its own file, the digest host/hello then reports. After
// deserialization it compiles the host's importer (importer.ts) and runs start.ts as the bundle
// does: the lockdown and its verification (with the security flags the core passes at run time),
// the channel, host/hello.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startupSnapshot } from 'node:v8';
import * as vm from 'node:vm';
import { setImporter } from './importer.ts';
import { start } from './start.ts';

const SOURCE_SHA256 = createHash('sha256').update(readFileSync(__filename)).digest('hex');

/**
 * snapshotImporter is import() compiled after deserialization, in the main context with its
 * default loader (module hooks included): a plugin with top-level await loads as under the bundle.
 */
function snapshotImporter(): (specifier: string) => Promise<unknown> {
  const f: unknown = vm.runInThisContext('(specifier) => import(specifier)', {
    filename: 'cwx-extension-host:importer',
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (typeof f !== 'function') throw new TypeError('the snapshot importer did not compile to a function');
  return (specifier) => Promise.resolve(Reflect.apply(f, undefined, [specifier]));
}

/**
 * quietImporterWarning drops the one ExperimentalWarning Node emits at the importer's first
 * import (USE_MAIN_CONTEXT_DEFAULT_LOADER is experimental in Node 22), which would otherwise be
 * a log line of every start; every other warning passes.
 */
function quietImporterWarning(): void {
  const emit = process.emitWarning;
  const quiet = (...args: unknown[]): void => {
    const w = args[0];
    const text = typeof w === 'string' ? w : w instanceof Error ? w.message : '';
    if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    Reflect.apply(emit, process, args);
  };
  Object.defineProperty(process, 'emitWarning', { value: quiet, writable: true, configurable: true });
}

startupSnapshot.setDeserializeMainFunction(() => {
  quietImporterWarning();
  setImporter(snapshotImporter());
  start(SOURCE_SHA256);
});
