// DSH module compatibility: singletons served once, loud refusals, and a real published DSH
// plugin (obtained with `npm pack`, checked against testdata/dsh) running unmodified.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, plugin, test, withCore } from './harness.mjs';

const ok = (a) => assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));

test('a plugin shipping its own cordis gets the host\'s single copy (one Context class)', async () => {
  await withCore({}, async (core) => {
    ok(await core.activate(plugin('own-cordis', 'index.mjs')));
    const r = (await core.callTool(core.handleOf('cordis_identity'), {})).result.structured;
    assert.deepEqual(r, { sameContext: true, shippedMarker: false });
  });
});

for (const [entry, re] of [
  ['agent.mjs', /requires `@deepseek-ai\/dsh-agent`, which cwx does not provide/],
  ['subpath.mjs', /requires `@deepseek-ai\/cordis\/lib\/index\.js`/],
  ['commands.mjs', /requires `@deepseek-ai\/dsh-commands`/],
]) {
  test(`an unprovided DSH import fails loudly: ${entry}`, async () => {
    await withCore({}, async (core) => {
      const a = await core.activate(plugin('dsh-peers', entry));
      assert.equal(a.result.status, 'failed', JSON.stringify(a.res));
      assert.match(a.result.diagnostic, re);
    });
  });
}

test('a shipped copy of a DSH peer under node_modules is refused too', async () => {
  await withCore({}, async (core) => {
    const { writeFileSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'cwx-peer-'));
    try {
      mkdirSync(join(dir, 'node_modules', '@deepseek-ai', 'dsh-agent'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', '@deepseek-ai', 'dsh-agent', 'package.json'), '{"name":"@deepseek-ai/dsh-agent","type":"module","main":"index.js"}');
      writeFileSync(join(dir, 'node_modules', '@deepseek-ai', 'dsh-agent', 'index.js'), 'export const agent = 1;\n');
      writeFileSync(join(dir, 'index.mjs'), "import { agent } from '@deepseek-ai/dsh-agent';\nexport const name = 'x';\nexport function apply() { return agent; }\n");
      const a = await core.activate(join(dir, 'index.mjs'));
      assert.equal(a.result.status, 'failed');
      assert.match(a.result.diagnostic, /requires `@deepseek-ai\/dsh-agent`/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('dsh-commands/brand, dsh-util-values and bare cosmokit resolve to the host', async () => {
  await withCore({}, async (core) => {
    ok(await core.activate(plugin('dsh-peers', 'brand.mjs')));
    const r = await core.runCommand(core.handleOf('brand', 'command'), '');
    assert.deepEqual(r.result, { kind: 'success', text: 'x true aB' });
  });
});

test('dsh-user-questions serves UserQuestionError; DSH\'s ask request form asks each question in turn', async () => {
  const seen = [];
  const answers = [{ kind: 'choice', choice: 'yes' }, { kind: 'text', text: 'later' }, { kind: 'skipped' }];
  await withCore({ userAsk: (p) => { seen.push(p.question); return { result: answers[seen.length - 1] }; } }, async (core) => {
    ok(await core.activate(plugin('dsh-peers', 'user-questions.mjs')));
    const ask = async (questions) => (await core.callTool(core.handleOf('dsh_ask'), { questions }, { ticket: 'tkt-dsh-1' })).result.structured;
    const r = await ask([
      { id: 'go', question: 'Proceed?', header: 'Confirm', options: [{ label: 'yes' }, { label: 'no', description: 'stop here' }] },
      { id: 'when', question: 'When?' },
      { id: 'why', question: 'Why?' },
    ]);
    assert.deepEqual(r, { answers: [{ id: 'go', selected: ['yes'] }, { id: 'when', selected: [], custom: 'later' }, { id: 'why', selected: [] }] });
    assert.deepEqual(seen, [
      { text: 'Confirm\nProceed?', options: [{ label: 'yes' }, { label: 'no', description: 'stop here' }] },
      { text: 'When?' },
      { text: 'Why?' },
    ]);
    for (const [qs, re] of [
      [[{ id: 'go', question: 'Pick', multiSelect: true, options: [{ label: 'a' }] }], /`multiSelect` is not provided by cwx/],
      [[{ question: 'No id?' }], /question 1 needs a non-empty string `id`/],
      [[], /`questions` is empty/],
    ]) {
      const e = await ask(qs);
      assert.equal(e.error, 'REFUSED', JSON.stringify(e));
      assert.equal(e.userQuestionError, true);
      assert.match(e.message, re);
    }
    assert.equal(seen.length, 3, 'a refused request reached the core');
  });
});

/** publishedPlugin returns the extracted entry of the pinned DSH tarball, fetching it once. */
function publishedPlugin() {
  const pin = JSON.parse(readFileSync(join(REPO, 'testdata', 'dsh', 'session-log-export.json'), 'utf8'));
  const cache = join(REPO, 'testdata', '.cache');
  const tgz = join(cache, pin.file);
  mkdirSync(cache, { recursive: true });
  if (!existsSync(tgz)) {
    execFileSync('npm', ['pack', pin.spec, '--pack-destination', cache, '--silent'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const digest = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  assert.equal(digest, pin.integrity, `${tgz} does not match the pinned digest in testdata/dsh`);
  const dir = mkdtempSync(join(tmpdir(), 'cwx-dsh-'));
  execFileSync('tar', ['xzf', tgz, '-C', dir]);
  return { dir, entry: join(dir, pin.entry) };
}

test('the published @deepseek-ai/dsh-session-log-export runs unmodified: /export, both result kinds', async () => {
  const { dir, entry } = publishedPlugin();
  try {
    await withCore({}, async (core) => {
      const a = await core.activate(entry, { pluginId: '@deepseek-ai/dsh-session-log-export' });
      assert.deepEqual(a.result, { status: 'ok', tools: [], commands: ['export'] });
      const h = core.handleOf('export', 'command');
      assert.deepEqual((await core.runCommand(h, '')).result, { kind: 'success', text: 'Session log download requested.' });
      assert.deepEqual((await core.runCommand(h, 'somewhere.zip')).result, { kind: 'error', text: 'The Web /export command does not accept a path.' });
      assert.deepEqual((await core.request('ext/deactivate', { owner: a.owner })).result, { disposed: true, leaked: [] });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120000);

test('dsh-tools compat: the parameter language compiles and checks like DSH', async () => {
  const { defineTool, compileParameters, checkValue, ToolArgsError, JsonSchemaError, ErrorCodes } = await import('../src/dsh/tools-compat.ts');
  const schema = compileParameters({
    path: { type: 'string', required: true },
    opts: { type: 'object', additionalProperties: false, properties: { depth: { type: 'integer' } } },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    value: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    blob: { type: 'json' },
    mode: { type: 'string', const: 'fast' },
  });
  assert.deepEqual(schema.required, ['path']);
  assert.equal(schema.additionalProperties, true, 'the top-level parameter object is open');
  assert.deepEqual(checkValue(schema, { path: 'x', opts: { depth: 1 }, tags: ['a'], value: 2, blob: [{ any: null }], mode: 'fast', extra: 1 }), []);
  const problems = checkValue(schema, { opts: { depth: 1.5, other: 1 }, tags: ['c'], value: true, mode: 'slow' });
  for (const re of [/\$\.path is required/, /\$\.opts\.depth must be an integer/, /\$\.opts\.other is not allowed/, /\$\.tags\[0\] must be one of/, /\$\.value must match exactly one/, /\$\.mode must be "fast"/]) {
    assert.ok(problems.some((p) => re.test(p)), `${re} in ${JSON.stringify(problems)}`);
  }
  assert.throws(() => compileParameters({ x: { type: 'date' } }), JsonSchemaError);
  assert.throws(() => compileParameters({ x: { type: 'object', properties: {} } }), /additionalProperties/);
  assert.throws(() => compileParameters({ x: { oneOf: [{ type: 'string' }] } }), /at least two/);
  const tool = defineTool({ name: 't', parameters: { n: { type: 'integer', required: true } }, execute: (args) => args.n * 2 });
  assert.equal(await tool.execute({ n: 21 }, {}), 42);
  assert.throws(() => tool.execute({ n: 'x' }, {}), (e) => e instanceof ToolArgsError && e.code === ErrorCodes.INVALID_ARGS && /invalid arguments/.test(e.message));
  assert.ok(Object.isFrozen(tool));
});
