// Errors that say where: syntax and type-stripping errors as file:line:column with the source
// line and a caret, the same on Node and Bun; a throw's top frame inside the plugin; config
// checked against the plugin's schema with every problem named; returns JSON cannot carry.
import assert from 'node:assert/strict';
import { IS_BUN, plugin, test, withCore } from './harness.mjs';

// a throw's column: Node points at `throw`, Bun at the `new` expression after it
const THROW_COL = IS_BUN ? 13 : 9;

const diagnostic = (a) => {
  assert.equal(a.result?.status, 'failed', JSON.stringify(a.res));
  return a.result.diagnostic;
};

test('a syntax error in a module entry: file:line:column, the line and a caret', async () => {
  await withCore({}, async (core) => {
    const d = diagnostic(await core.activate(plugin('syntax-error', 'index.mjs')));
    const lines = d.split('\n');
    assert.equal(lines[0], "index.mjs:7:13: SyntaxError: Unexpected token ';'"); // Bun's wording normalised
    assert.equal(lines[1], '  const x = ;');
    assert.equal(lines[2], '            ^');
    assert.equal(lines.length, 3);
  });
});

test('a TypeScript entry that does not parse: the same shape', async () => {
  await withCore({}, async (core) => {
    const d = diagnostic(await core.activate(plugin('ts-syntax-error', 'index.ts')));
    const lines = d.split('\n');
    assert.match(lines[0], /^index\.ts:4:25: SyntaxError: \S/);
    assert.equal(lines[1], '  const n: number = 1 + ;');
    assert.equal(lines[2], '                        ^');
  });
});

test('apply that throws names its top frame relative to the plugin', async () => {
  await withCore({}, async (core) => {
    const d = diagnostic(await core.activate(plugin('apply-throws', 'index.mjs')));
    assert.equal(d, `apply threw: RangeError: no room for this plugin (at index.mjs:6:${THROW_COL})`);
  });
});

test('config: every problem against the Config schema, unknown keys with the nearest known one', async () => {
  await withCore({}, async (core) => {
    const d = diagnostic(await core.activate(plugin('config', 'index.mjs'), { config: { greting: 'hi', target: 5, extra: true } }));
    assert.equal(d, 'config refused: target: expected string but got 5; unknown key `extra`; unknown key `greting` (did you mean `greeting`?)');
    assert.equal(diagnostic(await core.activate(plugin('config', 'index.mjs'), { config: {} })), 'config refused: target: missing required value');
    assert.equal((await core.activate(plugin('config', 'index.mjs'), { config: { target: 'x' } })).result.status, 'ok');
  });
});

test('tools returning a function, a symbol or a BigInt; throws with their frame; handler threw vs an error answer', async () => {
  await withCore({}, async (core) => {
    assert.equal((await core.activate(plugin('odd-returns', 'index.mjs'))).result.status, 'ok');
    const call = async (name) => (await core.callTool(core.handleOf(name), {})).error;
    assert.deepEqual(await call('odd_function'), { code: -32000, message: 'execute returned a function; return a string, or a value JSON can carry' });
    assert.deepEqual(await call('odd_symbol'), { code: -32000, message: 'execute returned a symbol; return a string, or a value JSON can carry' });
    assert.deepEqual(await call('odd_bigint'), { code: -32000,
      message: 'execute returned a BigInt at `counts[1]`, which JSON cannot carry (convert it to a string or a number); return a string, or a value JSON can carry' });
    assert.deepEqual(await call('odd_throw'), { code: -32000, message: `Error: the tool exploded (at lib/helper.mjs:3:${THROW_COL})` });
    const run = async (name) => (await core.runCommand(core.handleOf(name, 'command'), '')).result;
    assert.deepEqual(await run('odd-throw'), { kind: 'error', text: `handler threw: Error: the handler exploded (at lib/helper.mjs:3:${THROW_COL})` });
    assert.deepEqual(await run('odd-error'), { kind: 'error', text: 'deliberately refused' });
  });
});
