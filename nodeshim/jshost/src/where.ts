// Where a plugin's error happened, said the same way on Node and Bun: a syntax or
// type-stripping error as `file:line:column` with the source line and a caret, a throw as the
// plugin's top stack frame; paths relative to the plugin's staged directory.
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { isPlainObject } from './validate.ts';
import { authorRoot } from './dev-sources.ts';

/** Where is one place in a plugin's source. */
export interface Where {
  file: string;
  line: number;
  column: number;
  lineText: string;
}

const CLOSURE_DIR = /^[0-9a-f]{64}$/;

/** pluginRoot is the staged directory an entry lives in (named by its closure hash), else the entry's own directory. */
export function pluginRoot(entryPath: string): string {
  for (let d = dirname(entryPath); d !== dirname(d); d = dirname(d)) {
    if (CLOSURE_DIR.test(basename(d))) return d;
  }
  return dirname(entryPath);
}

/** relPath names file (a path or a file: URL) relative to root when it lies inside it. */
export function relPath(root: string, file: string): string {
  let p = file;
  if (p.startsWith('file://')) {
    try {
      p = fileURLToPath(p);
    } catch {
      return file;
    }
  }
  if (!isAbsolute(p)) return p;
  const rel = relative(root, p);
  return rel.startsWith('..') || isAbsolute(rel) ? p : rel.split(sep).join('/');
}

/** firstError is the first of an error's `errors` (Bun's build error carries them), or the error itself. */
function firstError(err: unknown): unknown {
  return isPlainObject(err) && Array.isArray(err.errors) ? err.errors[0] : err;
}

/**
 * syntaxWhere finds where a syntax or type-stripping error points: Bun's build message carries
 * its position; Node's type-stripping error carries it in its stack; Node's module syntax error
 * carries none, so the entry is compiled again as a script (module syntax blanked out, offsets
 * kept) and its location is used only when that compile fails with the very same message.
 */
export function syntaxWhere(err: unknown, entryPath: string): Where | undefined {
  const first = firstError(err);
  const pos = isPlainObject(first) ? first.position : undefined;
  if (isPlainObject(pos) && typeof pos.file === 'string' && typeof pos.line === 'number' && typeof pos.column === 'number') {
    return { file: pos.file, line: pos.line, column: pos.column, lineText: typeof pos.lineText === 'string' ? pos.lineText : '' };
  }
  if (!(err instanceof Error) || err.name !== 'SyntaxError') return undefined;
  const header = decorated(String(err.stack ?? ''));
  if (header) return header;
  let src: string;
  try {
    src = readFileSync(entryPath, 'utf8');
  } catch {
    return undefined;
  }
  try {
    new Script(blankModuleSyntax(src), { filename: entryPath });
  } catch (again) {
    if (again instanceof Error && again.message === err.message) {
      const w = decorated(String(again.stack ?? ''));
      if (w) return { ...w, lineText: src.split('\n')[w.line - 1] ?? w.lineText };
    }
  }
  return undefined;
}

/**
 * decorated reads the header V8 and Node put on a compile error's stack: "file:line", the
 * source (Node's type stripping adds a line of context before and after), then the caret.
 */
function decorated(stack: string): Where | undefined {
  const lines = stack.split('\n');
  const m = /^(.+):(\d+)$/.exec(lines[0] ?? '');
  if (!m) return undefined;
  for (let i = 2; i < Math.min(lines.length, 6); i++) {
    const caret = /^( *)\^+\s*$/.exec(lines[i] ?? '');
    if (caret) return { file: m[1] ?? '', line: Number(m[2]), column: (caret[1] ?? '').length + 1, lineText: lines[i - 1] ?? '' };
  }
  return undefined;
}

/** blankModuleSyntax turns import and export declarations into script code of the same length. */
function blankModuleSyntax(src: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return src
    .replace(/^[ \t]*import\s*(?:[\w$*{}\s,]+from\s*)?(['"])[^'"\n]*\1[ \t]*;?/gm, blank)
    .replace(/^([ \t]*)export\s+default(?=\s)/gm, (s, ind: string) => ind + 'void' + ' '.repeat(s.length - ind.length - 4))
    .replace(/^[ \t]*export\s*(?:\*[^;\n]*|\{[^}]*\}[^;\n]*)[;]?/gm, blank)
    .replace(/^([ \t]*)export(?=\s)/gm, (s, ind: string) => ind + ' '.repeat(s.length - ind.length))
    .replace(/\bimport\.meta\b/g, 'Object.meta');
}

/** describeSyntax is "file:line:col: SyntaxError: message", then the source line and a caret, or undefined. */
export function describeSyntax(err: unknown, entryPath: string): string | undefined {
  const w = syntaxWhere(err, entryPath);
  if (!w) return undefined;
  const root = pluginRoot(entryPath);
  const first = firstError(err);
  // Bun says "Unexpected ;" where Node says "Unexpected token ';'": one wording for both
  const message = (String((isPlainObject(first) ? first.message : undefined) ?? err).split('\n')[0] ?? '')
    .replace(/^Unexpected ([^\s\w'"]{1,3})$/, "Unexpected token '$1'");
  const text = w.lineText.replace(/\t/g, ' ');
  const lead = text.length - text.trimStart().length;
  const shown = text.trim().slice(0, 160);
  const caretAt = Math.max(0, Math.min(w.column - 1 - lead, shown.length));
  return `${relPath(root, w.file)}:${w.line}:${w.column}: SyntaxError: ${message}\n  ${shown}\n  ${' '.repeat(caretAt)}^`;
}

const FRAME = /(?:\(|\s)((?:file:\/\/)?\/[^\s()]+?):(\d+):(\d+)\)?\s*$/;

/**
 * topFrame is "file:line:col" of the first stack frame of err inside root, or undefined. Under
 * the dev inspector the frames name the author's folder instead (dev-sources.ts), which counts
 * as root too.
 */
export function topFrame(err: unknown, root: string): string | undefined {
  if (!(err instanceof Error) || typeof err.stack !== 'string') return undefined;
  const author = authorRoot(root);
  for (const line of err.stack.split('\n').slice(1)) {
    const m = FRAME.exec(line);
    if (!m) continue;
    const file = m[1];
    if (file === undefined) continue;
    let rel = relPath(root, file);
    if ((rel === file || isAbsolute(rel)) && author !== undefined) rel = relPath(author, file);
    if (rel === file || isAbsolute(rel)) continue; // outside the plugin: the host or a runtime module
    return `${rel}:${m[2]}:${m[3]}`;
  }
  return undefined;
}
