// The author's file names of a dev plugin under the inspector (`cwx plugin dev --inspect`).
// Each save re-stages the plugin under a new closure folder, $CWX_HOME/plugins/<disk
// name>/<closure>/…, so the module URLs a debugger knows change with every reload and its
// breakpoints, set by URL, would be lost. With CWX_DEV_SOURCES set (by the core, for that
// session's own host only: a JSON object from the staged prefix "<home>/plugins/<disk name>/"
// to the author's folder), the Node load hook appends `//# sourceURL=` naming the author's
// file to each staged module, so V8 reports, debugs and stack-traces it under that one stable
// name. A TypeScript module is stripped here, with the author's name as its sourceURL, since
// Node's own stripping would append the staged one after it (the last comment wins). Nothing
// else changes: positions are kept (the comment is appended, and type stripping keeps
// positions), and the bytes run are the staged, reviewed ones.
import * as nodeModule from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';

let sources: ReadonlyArray<readonly [prefix: string, author: string]> = [];

/** readDevSources takes CWX_DEV_SOURCES out of env, so no plugin sees it. */
export function readDevSources(env: NodeJS.ProcessEnv): void {
  const raw = env.CWX_DEV_SOURCES;
  delete env.CWX_DEV_SOURCES;
  if (!raw) return;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object') return;
    sources = Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string');
  } catch {
    // a malformed value names nothing: the modules keep their staged URLs
  }
  if (sources.length > 0) quietStripWarning();
}

/**
 * quietStripWarning drops the one ExperimentalWarning Node emits at the first
 * stripTypeScriptTypes call, which the host's stderr would otherwise report as the plugin's
 * error line; every other warning passes. Installed before lockdown (main.ts), for a dev
 * session's own host only.
 */
function quietStripWarning(): void {
  const emit = process.emitWarning;
  const quiet = (...args: unknown[]): void => {
    const w = args[0];
    const text = typeof w === 'string' ? w : w instanceof Error ? w.message : '';
    if (text.includes('stripTypeScriptTypes')) return;
    Reflect.apply(emit, process, args);
  };
  Object.defineProperty(process, 'emitWarning', { value: quiet, writable: true, configurable: true });
}

/**
 * authorPath maps a path under a staged prefix, <prefix><closure><rest>, to the author's
 * folder and rest ("" for the closure folder itself, else "/…"); undefined elsewhere.
 */
function authorPath(path: string): { author: string; rest: string } | undefined {
  for (const [prefix, author] of sources) {
    if (!path.startsWith(prefix)) continue;
    const tail = path.slice(prefix.length);
    const slash = tail.indexOf('/');
    if (slash === 0 || tail === '') return undefined;
    return { author, rest: slash < 0 ? '' : tail.slice(slash) };
  }
  return undefined;
}

/** authorURL is the author's file URL of a staged module URL, or undefined. */
export function authorURL(url: string): string | undefined {
  if (sources.length === 0 || !url.startsWith('file:')) return undefined;
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    return undefined;
  }
  const m = authorPath(path);
  return m === undefined || m.rest === '' ? undefined : pathToFileURL(m.author + m.rest).href;
}

/** authorRoot is the author's folder of a staged directory (<prefix><closure>), or undefined. */
export function authorRoot(staged: string): string | undefined {
  const m = authorPath(staged);
  return m !== undefined && m.rest === '' ? m.author : undefined;
}

/** withSourceURL is a load result whose source names the author's file, when it has one. */
export function withSourceURL(url: string, result: nodeModule.LoadFnOutput): nodeModule.LoadFnOutput {
  const author = authorURL(url);
  const src = result.source;
  if (author === undefined) return result;
  let text: string;
  if (typeof src === 'string') text = src;
  else if (src instanceof Uint8Array) text = Buffer.from(src.buffer, src.byteOffset, src.byteLength).toString('utf8');
  else return result; // no source (Node loads it itself): it keeps its staged URL
  const typescript = result.format === 'module-typescript' || result.format === 'commonjs-typescript';
  if (typescript) {
    const strip = nodeModule.stripTypeScriptTypes;
    if (typeof strip !== 'function') return result;
    const format = result.format === 'module-typescript' ? 'module' : 'commonjs';
    return { ...result, format, source: strip(text, { mode: 'strip', sourceUrl: author }) };
  }
  return { ...result, source: `${text}\n//# sourceURL=${author}\n` };
}
