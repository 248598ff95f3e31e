// tool/call and command/run through the shims, including DSH defineTool definitions.
import assert from 'node:assert/strict';
import { plugin, sleep, test, withCore } from './harness.mjs';

test('tool results: JSON value, string, class instance, throw, exec', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('tool', 'index.mjs'), { dataDir: '/data/fixture-tool', config: { k: 1 } });
    assert.equal(a.result.status, 'ok');
    const h = core.handleOf('echo_text');
    const reg = core.messages.find((m) => m.method === 'registry/register');
    assert.deepEqual(reg.params.spec.input_schema, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    assert.deepEqual((await core.callTool(h, { text: 'hi' })).result,
      { content: [{ type: 'text', text: '{"echoed":"hi"}' }], is_error: false, structured: { echoed: 'hi' } });
    assert.deepEqual((await core.callTool(h, { text: 'hi', mode: 'string' })).result,
      { content: [{ type: 'text', text: 'hi' }], is_error: false });
    const cls = await core.callTool(h, { text: 'x', mode: 'class' });
    assert.equal(cls.result, undefined, 'a Map is not carried as JSON (it would become {})');
    assert.equal(cls.error.code, -32000);
    assert.match(cls.error.message, /^execute returned a Map, which JSON cannot carry \(JSON would make it \{\}; convert it with Object\.fromEntries\)/);
    const err = (await core.callTool(h, { text: 'bad input', mode: 'throw' })).error;
    assert.equal(err.code, -32000);
    assert.match(err.message, /^TypeError: bad input \(at index\.mjs:11:\d+\)$/, 'the plugin\'s top frame (columns differ between runtimes)');
    const long = (await core.callTool(h, { text: 'x'.repeat(10000), mode: 'throw' })).error;
    assert.equal(long.message.length, 4096);
    const exec = (await core.callTool(h, { text: 'x', mode: 'exec' }, { workspace: '/ws', call_id: 'c-42' })).result.structured;
    assert.deepEqual(exec, {
      frozen: true, keys: ['args', 'arguments', 'callId', 'dataDir', 'signal', 'workspace'], callId: 'c-42', sameArgs: true,
      workspace: '/ws', dataDir: '/data/fixture-tool', aborted: false, config: { k: 1 },
    });
  });
});

test('unknown, revoked and cancelled tool calls', async () => {
  await withCore({}, async (core) => {
    assert.deepEqual((await core.callTool(4242, {})).error, { code: -32001, message: 'tool handle 4242 is not live' });
    const a = await core.activate(plugin('slow-tool', 'index.mjs'));
    const h = core.handleOf('slow_wait');
    const call = core.callTool(h, {});
    await sleep(30);
    core.notify('$/cancel', { id: call.id });
    assert.equal((await call).error.code, -32800);
    await core.request('ext/deactivate', { owner: a.owner });
    assert.equal((await core.callTool(h, { ms: 1 })).error.code, -32001);
  });
});

test('DSH defineTool: parameter language, ToolArgsError, output.render', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('dsh-define-tool', 'index.mjs'));
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    const reg = core.messages.find((m) => m.method === 'registry/register');
    assert.deepEqual(reg.params.spec.input_schema, {
      type: 'object',
      properties: {
        word: { description: 'What to shout.', type: 'string' },
        times: { description: 'How often.', type: 'integer' },
        style: { type: 'string', enum: ['plain', 'stars'] },
      },
      required: ['word'],
      additionalProperties: true,
    });
    const h = core.handleOf('shout');
    const r = (await core.callTool(h, { word: 'hey', times: 2, style: 'stars' })).result;
    assert.deepEqual(r.content, [{ type: 'text', text: 'hey x2: *HEY HEY*' }]);
    assert.equal(r.structured.argsErrorIsClass, true);
    const bad = (await core.callTool(h, { times: 'two', style: 'loud' })).error;
    assert.equal(bad.code, -32000);
    assert.match(bad.message, /^ToolArgsError: invalid arguments: /);
    assert.match(bad.message, /\$\.word is required/);
    assert.match(bad.message, /\$\.times must be an integer/);
    assert.match(bad.message, /\$\.style must be one of "plain", "stars"/);
  });
});

test('commands: every result kind, a string, a throw, rawInput, cancel', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('command', 'index.mjs'), { dataDir: '/data/cmd' });
    assert.equal(a.result.status, 'ok');
    const g = core.handleOf('greet', 'command');
    const run = async (raw) => (await core.runCommand(g, raw)).result;
    assert.deepEqual(await run('there'), { kind: 'success', text: 'hello there' });
    assert.deepEqual(await run('string'), { kind: 'success', text: 'hello as a string' });
    assert.deepEqual(await run('undefined'), { kind: 'success' });
    assert.deepEqual(await run('error'), { kind: 'error', text: 'no greeting today' });
    assert.deepEqual(await run('submit'), { kind: 'submit', prompt: 'Say hello to the user.', text: 'submitting' });
    const threw = await run('throw');
    assert.equal(threw.kind, 'error');
    assert.match(threw.text, /^handler threw: Error: greeting exploded \(at index\.mjs:15:\d+\)$/);
    const wait = core.runCommand(g, 'wait');
    await sleep(30);
    core.notify('$/cancel', { id: wait.id });
    assert.equal((await wait).error.code, -32800);
    const raw = JSON.parse((await core.runCommand(core.handleOf('rawcheck', 'command'), 'a  b', { workspace: '/ws' })).result.text);
    assert.deepEqual(raw, { rawInput: ' a  b', args: 'a  b', frozen: true, workspace: '/ws', dataDir: '/data/cmd', attachments: [] });
    const empty = JSON.parse((await core.runCommand(core.handleOf('rawcheck', 'command'), '')).result.text);
    assert.equal(empty.rawInput, '');
    assert.deepEqual((await core.runCommand(9999, '')).error, { code: -32001, message: 'command handle 9999 is not live' });
    assert.equal((await core.runCommand(core.handleOf('greet', 'command') + 1000, '')).error.code, -32001);
    const reg = core.messages.find((m) => m.method === 'registry/register' && m.params.spec.name === 'rawcheck');
    assert.equal(reg.params.spec.argument_hint, '[text]');
  });
});
