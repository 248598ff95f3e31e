// Faults attributed through async context, the logger, the timer service.
import assert from 'node:assert/strict';
import { plugin, sleep, test, withCore } from './harness.mjs';

test('a throw in a timer callback faults its owner, which is disposed', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('faults', 'index.mjs'));
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    const other = await core.activate(plugin('tool', 'index.mjs'));
    assert.equal(other.result.status, 'ok');
    await core.callTool(core.handleOf('timer_throw'), {});
    const f = await core.waitFor((m) => m.method === 'ext/faulted', 5000, 'ext/faulted');
    assert.deepEqual(f.params, { owner: a.owner, error: 'Error: thrown in a timer callback' });
    await core.waitFor((m) => m.method === 'registry/unregister', 5000, 'unregister');
    assert.equal((await core.callTool(core.handleOf('timer_throw'), {})).error.code, -32001);
    // the neighbour is untouched
    assert.equal((await core.callTool(core.handleOf('echo_text'), { text: 'ok', mode: 'string' })).result.content[0].text, 'ok');
  });
});

test('an unhandled rejection faults its owner', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('faults', 'index.mjs'));
    await core.callTool(core.handleOf('late_reject'), {});
    const f = await core.waitFor((m) => m.method === 'ext/faulted', 5000, 'ext/faulted');
    assert.deepEqual(f.params, { owner: a.owner, error: 'RangeError: rejected later' });
  });
});

test('ctx.setInterval runs under the owner and is cleared at dispose', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('faults', 'index.mjs'));
    await sleep(100);
    const t1 = (await core.callTool(core.handleOf('interval_count'), {})).result.structured.ticks;
    assert.ok(t1 > 0, 'the interval ticked');
    const d = await core.request('ext/deactivate', { owner: a.owner });
    assert.deepEqual(d.result, { disposed: true, leaked: [] });
    assert.equal((await core.activate(plugin('faults', 'reader.mjs'))).result.status, 'ok');
    const read = async () => (await core.callTool(core.handleOf('read_ticks'), {})).result.structured.ticks;
    const after1 = await read();
    await sleep(100);
    assert.equal(await read(), after1, 'the interval kept running after its owner was disposed');
  });
});

test('logger output becomes log notifications attributed to the plugin', async () => {
  await withCore({}, async (core) => {
    // Cordis logs the failure of an apply that throws through the plugin's logger (a config its
    // schema refuses never reaches Cordis: the host refuses it first, without a stack trace)
    const a = await core.activate(plugin('apply-throws', 'index.mjs'));
    assert.equal(a.result.status, 'failed');
    const log = await core.waitFor((m) => m.method === 'log' && m.params.plugin_id === a.owner.plugin_id, 5000, 'an attributed log line');
    assert.equal(log.params.level, 'error');
    assert.match(log.params.msg, /^\[[^\]]+\] /);
  });
});

test('an unattributed fault becomes a log error and faults nobody', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('faults', 'index.mjs'));
    assert.equal(a.result.status, 'ok');
    await core.callTool(core.handleOf('unattributed'), {});
    const log = await core.waitFor((m) => m.method === 'log' && /unattributed extension fault/.test(m.params.msg), 5000, 'unattributed log');
    assert.equal(log.params.level, 'error');
    assert.equal(log.params.plugin_id, undefined);
    assert.match(log.params.msg, /nobody owns this/);
    assert.equal(core.messages.filter((m) => m.method === 'ext/faulted').length, 0);
    assert.equal((await core.callTool(core.handleOf('interval_count'), {})).error, undefined, 'the plugin stays live');
  });
});

test('a registration disposer is idempotent: one registry/unregister', async () => {
  await withCore({}, async (core) => {
    await core.activate(plugin('faults', 'index.mjs'));
    const r = await core.callTool(core.handleOf('withdraw_twice'), {});
    assert.equal(r.result.content[0].text, 'withdrawn');
    const handle = core.handleOf('temp_tool');
    assert.equal(core.messages.filter((m) => m.method === 'registry/unregister' && m.params.handle === handle).length, 1);
    assert.equal((await core.callTool(handle, {})).error.code, -32001);
  });
});
