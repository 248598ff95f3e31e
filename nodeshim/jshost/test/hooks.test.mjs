// Pre-execute hooks: ctx.on('tools/pre-execute') registers a `hook`, and hook/evaluate maps the
// listener's answer to a verdict.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const evaluate = (core, handle, name, input, extra = {}) => core.request('hook/evaluate', {
  handle, event: 'tools/pre-execute', deadline_ms: 5000,
  payload: { name, call_id: 'call-1', input, mode: 'agent', workspace: '/ws', model: '', ...extra },
});

test('pre-execute hooks: registration in order, each verdict, failures, allow logged once', async () => {
  let held;
  const admitted = [];
  await withCore({
    admit: (spec, params) => {
      if (params.kind !== 'hook') return undefined;
      admitted.push(params);
      return { handle: 200 + admitted.length };
    },
  }, async (core) => {
    const a = await core.activate(plugin('hooks', 'index.mjs'), { pluginId: 'fixture-hooks' });
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    assert.equal(admitted.length, 2);
    for (const p of admitted) assert.deepEqual(p.spec, { name: 'tools/pre-execute', description: '' });
    const [first, second] = [201, 202];
    const cases = [
      ['hello', { kind: 'abstain' }],
      ['next', { kind: 'abstain' }],
      ['deny', { kind: 'deny', reason: 'the fixture denies it' }],
      ['ask', { kind: 'ask', reason: 'the fixture wants a person to look' }],
      ['annotate', { kind: 'annotate', text: 'the fixture looked at it' }],
      ['revise', { kind: 'revise', input: { text: 'revised by the fixture' } }],
      ['allow', { kind: 'abstain' }],
      ['allow', { kind: 'abstain' }],
    ];
    for (const [text, want] of cases) {
      assert.deepEqual((await evaluate(core, first, 'echo_text', { text })).result, want, text);
    }
    assert.deepEqual((await evaluate(core, second, 'echo_text', { text: 'order' })).result, { kind: 'revise', input: { text: 'second' } });
    const thrown = (await evaluate(core, first, 'echo_text', { text: 'throw' })).error;
    assert.deepEqual(thrown, { code: -32000, message: 'the listener threw: RangeError: the fixture hook threw' });
    assert.match((await evaluate(core, first, 'echo_text', { text: 'malformed' })).error.message, /unsupported answer 42/);
    assert.match((await evaluate(core, first, 'echo_text', { text: 'two-keys' })).error.message, /unsupported answer/);
    const exec = JSON.parse((await evaluate(core, first, 'echo_text', { text: 'exec' })).result.reason);
    assert.deepEqual(exec, { keys: ['arguments', 'callId', 'name', 'signal', 'workspace'], frozen: true, argsFrozen: true,
      name: 'echo_text', callId: 'call-1', workspace: '/ws', aborted: false });
    assert.equal((await evaluate(core, 4242, 'echo_text', {})).error.code, -32001);
    const slow = evaluate(core, first, 'echo_text', { text: 'slow' });
    core.notify('$/cancel', { id: slow.id });
    assert.equal((await slow).error.code, -32800);
    const logs = core.messages.filter((m) => m.method === 'log' && /answered allow/.test(m.params.msg));
    assert.equal(logs.length, 1, 'allow is logged once per owner');
    assert.equal(logs[0].params.plugin_id, 'fixture-hooks');
    await core.request('ext/deactivate', { owner: a.owner });
    assert.equal((await evaluate(core, first, 'echo_text', { text: 'deny' })).error.code, -32001);
    held = core.messages.filter((m) => m.method === 'registry/unregister').map((m) => m.params.handle).sort();
  });
  assert.deepEqual(held, [201, 202], 'both hooks withdrawn with their owner');
});
