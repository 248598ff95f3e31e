// DSH module compatibility. Published DSH plugins import their framework by package name; the
// host serves exactly one copy of each singleton (cordis, schemastery, cosmokit, dsh-util-values),
// a compat `@deepseek-ai/dsh-tools`, `@deepseek-ai/dsh-commands/brand`, and
// `@deepseek-ai/dsh-user-questions` (the module that declares the `userQuestions` service, which
// plugins import for its types and its error class: here only `UserQuestionError`, the class of
// the rejections of cwx's own `userQuestions`; any other named import of it fails naming the
// export), even when a plugin ships its own copies under node_modules. Any other `@deepseek-ai/dsh-*` or `cordis-*` package,
// or a subpath of a singleton, fails loudly with "requires `X`". Node uses module.registerHooks;
// Bun has no such hook, so it gets Bun.plugin (build.module for exact names, onResolve for the
// subpaths Bun passes, onLoad refusing peer copies under node_modules).
import * as nodeModule from 'node:module';
import * as cordis from '@deepseek-ai/cordis';
import * as cosmokit from '@deepseek-ai/cosmokit';
import * as schemastery from '@deepseek-ai/schemastery';
import * as utilValues from '@deepseek-ai/dsh-util-values';
import * as dshTools from './tools-compat.ts';
import * as brand from './brand.ts';
import { QuestionError } from '../shims/questions.ts';
import providedList from './provided-modules.json' with { type: 'json' };
import type { BunPluginBuilder, BunRuntime } from '../runtime-globals.ts';
import { readDevSources, withSourceURL } from '../dev-sources.ts';

export const PROVIDED: Readonly<Record<string, Record<string, unknown>>> = Object.freeze({
  '@deepseek-ai/cordis': { ...cordis },
  '@deepseek-ai/schemastery': { ...schemastery },
  '@deepseek-ai/cosmokit': { ...cosmokit },
  cosmokit: { ...cosmokit },
  '@deepseek-ai/dsh-util-values': { ...utilValues },
  '@deepseek-ai/dsh-tools': { ...dshTools },
  '@deepseek-ai/dsh-commands/brand': { ...brand },
  '@deepseek-ai/dsh-user-questions': { UserQuestionError: QuestionError },
});

// provided-modules.json is what the plugin installer reads (dist/provided-modules.json); it must
// name exactly the modules served here.
if (JSON.stringify(Object.keys(PROVIDED).sort()) !== JSON.stringify([...providedList.provided].sort())) {
  throw new Error('provided-modules.json does not match the modules the host serves');
}

const SINGLETON_PACKAGES = ['@deepseek-ai/cordis', '@deepseek-ai/schemastery', '@deepseek-ai/cosmokit', 'cosmokit', '@deepseek-ai/dsh-util-values', '@deepseek-ai/dsh-tools', '@deepseek-ai/dsh-user-questions'];
const PEER = /^(@deepseek-ai\/(?:dsh-[^/]+|cordis-[^/]+))(?:\/.*)?$/;
const PEER_COPY = /[\\/]node_modules[\\/]((?:@deepseek-ai[\\/][^\\/]+)|cosmokit|schemastery)[\\/]/;

export class MissingModuleError extends Error {
  override name = 'MissingModuleError';
  readonly specifier: string;
  constructor(specifier: string) {
    super(`requires \`${specifier}\`, which cwx does not provide`);
    this.specifier = specifier;
  }
}

/** classify says what the host does with a bare specifier: serve it, refuse it, or leave it alone. */
export function classify(specifier: string): { provide: string } | { refuse: string } | null {
  if (Object.hasOwn(PROVIDED, specifier)) return { provide: specifier };
  for (const p of SINGLETON_PACKAGES) if (specifier.startsWith(`${p}/`)) return { refuse: specifier };
  const pkg = PEER.exec(specifier)?.[1];
  if (pkg !== undefined) return { refuse: pkg };
  return null;
}

/** explainImportError maps a runtime's "cannot find package" error onto the "requires `X`" one. */
export function explainImportError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const spec = /Cannot find (?:package|module) '([^']+)'/.exec(err.message)?.[1];
  if (spec === undefined) return err;
  const pkg = spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
  const c = classify(spec);
  if (c && 'refuse' in c) return new MissingModuleError(c.refuse);
  if (PEER.test(pkg)) return new MissingModuleError(pkg);
  return err;
}

const REGISTRY_KEY = Symbol.for('cwx.host.modules');
const SCHEME = 'cwx-host:';
const IDENT = /^[A-Za-z_$][\w$]*$/;

function virtualSource(key: string): string {
  const ns = PROVIDED[key];
  if (ns === undefined) throw new MissingModuleError(key);
  const lines = [`const m = globalThis[Symbol.for('cwx.host.modules')][${JSON.stringify(key)}];`];
  for (const name of Object.keys(ns)) {
    if (name === 'default' || !IDENT.test(name)) continue;
    lines.push(`export const ${name} = m[${JSON.stringify(name)}];`);
  }
  if (Object.hasOwn(ns, 'default')) lines.push('export default m.default;');
  return lines.join('\n');
}

/** installResolution installs the hooks for the running runtime; it throws when it cannot. */
export function installResolution(): 'node' | 'bun' {
  readDevSources(process.env);
  Object.defineProperty(globalThis, REGISTRY_KEY, { value: PROVIDED, enumerable: false, writable: false, configurable: false });
  const bun = globalThis.Bun;
  if (bun) {
    installBun(bun);
    return 'bun';
  }
  // older Nodes have no registerHooks, whatever @types/node says
  const registerHooks: typeof nodeModule.registerHooks | undefined = nodeModule.registerHooks;
  if (typeof registerHooks !== 'function') throw new Error('this Node has no module.registerHooks (Node ^22.19.0 || >=24 is required)');
  registerHooks({
    resolve(specifier, context, next) {
      const c = classify(specifier);
      if (c === null) return next(specifier, context);
      if ('refuse' in c) throw new MissingModuleError(c.refuse);
      return { url: SCHEME + c.provide, format: 'module', shortCircuit: true };
    },
    load(url, context, next) {
      if (url.startsWith(SCHEME)) {
        return { format: 'module', source: virtualSource(url.slice(SCHEME.length)), shortCircuit: true };
      }
      refusePeerCopy(url);
      return withSourceURL(url, next(url, context));
    },
  });
  return 'node';
}

function refusePeerCopy(path: string): void {
  const found = PEER_COPY.exec(path)?.[1];
  if (found === undefined) return;
  const pkg = found.replace('\\', '/');
  const c = classify(pkg);
  if (c && 'provide' in c) throw new Error(`loads its own copy of \`${pkg}\` from ${path}; import \`${pkg}\` by name to get cwx's single copy`);
  if (PEER.test(pkg)) throw new MissingModuleError(pkg);
}

function installBun(bun: BunRuntime): void {
  bun.plugin({
    name: 'cwx-dsh-modules',
    target: 'bun',
    setup(build: BunPluginBuilder) {
      for (const [key, exports] of Object.entries(PROVIDED)) {
        build.module(key, () => ({ exports, loader: 'object' }));
      }
      build.onResolve({ filter: /^(?:@deepseek-ai\/|cosmokit\/)/ }, (args) => {
        const c = classify(args.path);
        if (c && 'refuse' in c) throw new MissingModuleError(c.refuse);
        return undefined;
      });
      build.onLoad({ filter: PEER_COPY }, (args) => {
        refusePeerCopy(args.path);
        return undefined;
      });
    },
  });
}
