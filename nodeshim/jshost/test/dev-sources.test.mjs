// The author's file names of a dev plugin under the inspector (src/dev-sources.ts): a staged
// module of any generation maps to the author's file, anything else keeps its URL, a
// TypeScript module is stripped with the author's name, and the variable leaves the
// environment once read.
import assert from 'node:assert/strict';
import { test } from './harness.mjs';
import { readDevSources, authorURL, withSourceURL } from '../src/dev-sources.ts';

const env = { CWX_DEV_SOURCES: JSON.stringify({ '/home/u/.cwx/plugins/my-greeter-abc/': '/work/my-greeter' }) };
readDevSources(env);

test('the variable is read once and removed', () => {
  assert.equal(env.CWX_DEV_SOURCES, undefined);
});

test('every generation maps to the one author file', () => {
  for (const closure of ['1111', '2222']) {
    assert.equal(authorURL(`file:///home/u/.cwx/plugins/my-greeter-abc/${closure}/src/index.ts`), 'file:///work/my-greeter/src/index.ts');
  }
  assert.equal(authorURL('file:///home/u/.cwx/plugins/my-greeter-abc/1111'), undefined);
  assert.equal(authorURL('file:///home/u/.cwx/plugins/other-def/1111/index.mjs'), undefined);
  assert.equal(authorURL('node:fs'), undefined);
});

test('a module gets a sourceURL, a TypeScript one is stripped with it', () => {
  const url = 'file:///home/u/.cwx/plugins/my-greeter-abc/1111/src/index.mjs';
  const js = withSourceURL(url, { format: 'module', source: Buffer.from('export const a = 1;') });
  assert.equal(js.source, 'export const a = 1;\n//# sourceURL=file:///work/my-greeter/src/index.mjs\n');
  if (typeof globalThis.Bun === 'undefined') { // Bun has no module.stripTypeScriptTypes, and needs none
    const ts = withSourceURL(url.replace('.mjs', '.ts'), { format: 'module-typescript', source: 'export const a: number = 1;' });
    assert.equal(ts.format, 'module');
    assert.match(ts.source, /^export const a {9}= 1;[\s\S]*\/\/# sourceURL=file:\/\/\/work\/my-greeter\/src\/index\.ts/);
  }
  const other = { format: 'module', source: 'x' };
  assert.equal(withSourceURL('file:///elsewhere/x.mjs', other), other);
});

test('a throw under the inspector is placed in the author folder', async () => {
  const { topFrame } = await import('../src/where.ts');
  const err = new Error('boom');
  err.stack = 'Error: boom\n    at apply (file:///work/my-greeter/src/index.ts:7:11)\n    at host (file:///opt/cwx/host.mjs:1:1)';
  assert.equal(topFrame(err, '/home/u/.cwx/plugins/my-greeter-abc/1111'), 'src/index.ts:7:11');
  assert.equal(topFrame(err, '/home/u/.cwx/plugins/other-def/1111'), undefined);
});
