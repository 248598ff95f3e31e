// ext/activate and ext/deactivate: deadline, all-or-nothing, several entries, re-hash, tokens,
// tiers, config, inject checks, core service refusal through every route.
import assert from 'node:assert/strict';
import { methods, ownerRef, plugin, sha256File, sleep, test, withCore } from './harness.mjs';

const ok = (a) => assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
const failedWith = (a, re) => {
  assert.equal(a.result?.status, 'failed', JSON.stringify(a.res));
  assert.match(a.result.diagnostic, re);
};

test('ok lists the admitted tools and commands, sorted', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('command', 'index.mjs'));
    assert.deepEqual(a.result, { status: 'ok', tools: [], commands: ['greet', 'rawcheck'] });
    const reg = core.messages.find((m) => m.method === 'registry/register' && m.params.spec.name === 'greet');
    assert.deepEqual(reg.params, { owner: a.owner, kind: 'command', spec: { name: 'greet', description: 'Greet someone.', argument_hint: '<mode>' } });
  });
});

test('a reused owner token is refused', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('tool', 'index.mjs'));
    ok(a);
    const b = await core.activate(plugin('tool', 'index.mjs'), { owner: a.owner });
    failedWith(b, /owner token already active/);
  });
});

test('an entry whose bytes changed after review is refused', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('tool', 'index.mjs'), { sha256: 'ab'.repeat(32) });
    failedWith(a, /changed after review \(sha256 [0-9a-f]{12}…\)/);
    assert.equal(core.messages.filter((m) => m.method === 'registry/register').length, 0);
  });
});

test('owners of the other tier are refused with InvalidParams', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('tool', 'index.mjs'), { owner: ownerRef('host:harness') });
    assert.equal(a.error.code, -32602);
  });
  await withCore({ args: ['--tier=builtin'] }, async (core) => {
    const a = await core.activate(plugin('tool', 'index.mjs'));
    assert.equal(a.error.code, -32602);
    assert.equal(core.messages.filter((m) => m.method === 'registry/register').length, 0);
  });
});

test('config reaches apply; the Config schema fills defaults and names a bad field', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('config', 'index.mjs'), { config: { target: 'world' } });
    ok(a);
    const r = await core.callTool(core.handleOf('config_echo'), {});
    assert.equal(r.result.structured.text, 'Hello, world');
    const b = await core.activate(plugin('config', 'index.mjs'), { config: { greeting: 42 } });
    assert.equal(b.result.diagnostic, 'config refused: greeting: expected string but got 42; target: missing required value');
  });
});

test('an apply that never settles still gets an answer at the deadline from host/initialize', async () => {
  await withCore({ limits: { activate_deadline_ms: 600, dispose_deadline_ms: 300 } }, async (core) => {
    const t0 = Date.now();
    const a = await core.activate(plugin('never-settles', 'index.mjs'));
    const took = Date.now() - t0;
    failedWith(a, /activation exceeded 600 ms/);
    assert.ok(took >= 550 && took < 3000, `answered after ${took} ms`);
    assert.deepEqual((await core.request('host/ping', {})).result, {});
  });
});

test('deactivating an owner while its apply still runs: activation answers failed', async () => {
  await withCore({ limits: { activate_deadline_ms: 3000, dispose_deadline_ms: 300 } }, async (core) => {
    const owner = ownerRef('fixture-never-settles');
    const act = core.activate(plugin('never-settles', 'index.mjs'), { owner });
    await core.waitFor((m) => m.method === 'registry/register', 5000, 'the registration');
    const d = await core.request('ext/deactivate', { owner });
    assert.equal(typeof d.result.disposed, 'boolean');
    const a = await act;
    assert.equal(a.result.status, 'failed', JSON.stringify(a.res));
    assert.deepEqual((await core.request('host/ping', {})).result, {});
  });
});

test('providing approval fails the plugin and rolls back its earlier registration', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('refuses-approval', 'index.mjs'));
    failedWith(a, /may not provide core service `approval`/);
    const reg = core.messages.find((m) => m.method === 'registry/register');
    const handle = core.handleOf('approval_probe');
    const unreg = core.messages.find((m) => m.method === 'registry/unregister');
    assert.ok(unreg, 'the probe tool was unregistered');
    assert.equal(unreg.params.handle, handle);
    assert.ok(core.messages.indexOf(reg) < core.messages.indexOf(unreg));
    const answerIdx = core.messages.findIndex((m) => m.id === a.res.id && m.method === undefined);
    assert.ok(core.messages.indexOf(unreg) < answerIdx, 'rolled back before the answer');
  });
});

test('a refused registration fails activation and withdraws the admitted ones (all or nothing)', async () => {
  const admit = (spec) => (spec.name === 'read_file' ? { refused: 'name `read_file` collides with a built-in tool' } : undefined);
  await withCore({ admit }, async (core) => {
    const a = await core.activate(plugin('name-clash', 'index.mjs'));
    failedWith(a, /tool `read_file` refused: name `read_file` collides with a built-in tool/);
    const unreg = core.messages.filter((m) => m.method === 'registry/unregister').map((m) => m.params.handle);
    assert.deepEqual(unreg, [core.handleOf('echo_before_clash')]);
  });
});

test('two entries under one owner; one deactivation tears both down', async () => {
  await withCore({}, async (core) => {
    const owner = ownerRef('fixture-two-entries');
    const a = await core.activate(plugin('two-entries', 'first.mjs'), { owner, pluginName: 'two' });
    ok(a);
    const b = await core.activate(plugin('two-entries', 'second.mjs'), { owner, pluginName: 'two' });
    assert.deepEqual(b.result, { status: 'ok', tools: ['first_tool', 'second_tool'], commands: [] });
    assert.equal((await core.callTool(core.handleOf('first_tool'), {})).result.content[0].text, 'first');
    assert.equal((await core.callTool(core.handleOf('second_tool'), {})).result.content[0].text, 'second');
    const again = await core.activate(plugin('two-entries', 'second.mjs'), { owner, pluginName: 'two' });
    failedWith(again, /owner token already active/);
    const foreign = await core.activate(plugin('tool', 'index.mjs'), { owner, pluginName: 'someone-else' });
    failedWith(foreign, /owner token already active/);
    assert.equal((await core.callTool(core.handleOf('first_tool'), {})).result.content[0].text, 'first', 'a refused entry leaves the owner alone');
    const d = await core.request('ext/deactivate', { owner });
    assert.deepEqual(d.result, { disposed: true, leaked: [] });
    const unreg = core.messages.filter((m) => m.method === 'registry/unregister').map((m) => m.params.handle).sort();
    assert.deepEqual(unreg, [core.handleOf('first_tool'), core.handleOf('second_tool')].sort());
  });
});

test('ext/deactivate with an entry retires only that entry', async () => {
  await withCore({}, async (core) => {
    const owner = ownerRef('fixture-two-entries');
    ok(await core.activate(plugin('two-entries', 'first.mjs'), { owner, pluginName: 'two' }));
    ok(await core.activate(plugin('two-entries', 'second.mjs'), { owner, pluginName: 'two' }));
    const second = plugin('two-entries', 'second.mjs');
    const d = await core.request('ext/deactivate', { owner, entry: { path: second, sha256: sha256File(second) } });
    assert.deepEqual(d.result, { disposed: true, leaked: [] });
    assert.equal((await core.callTool(core.handleOf('second_tool'), {})).error.code, -32001);
    assert.equal((await core.callTool(core.handleOf('first_tool'), {})).result.content[0].text, 'first');
  });
});

test('a failing second entry leaves nothing of the first', async () => {
  await withCore({}, async (core) => {
    const owner = ownerRef('fixture-two-entries');
    ok(await core.activate(plugin('two-entries', 'first.mjs'), { owner, pluginName: 'two' }));
    const b = await core.activate(plugin('two-entries', 'failing.mjs'), { owner, pluginName: 'two' });
    failedWith(b, /second entry failed on purpose/);
    const unreg = core.messages.filter((m) => m.method === 'registry/unregister').map((m) => m.params.handle).sort();
    assert.deepEqual(unreg, [core.handleOf('first_tool'), core.handleOf('failing_tool')].sort());
    const call = await core.callTool(core.handleOf('first_tool'), {});
    assert.equal(call.error.code, -32001);
  });
});

test('injecting a service the host does not provide fails with "requires"', async () => {
  await withCore({}, async (core) => {
    failedWith(await core.activate(plugin('injects-secrets', 'index.mjs')), /requires `secrets`/);
  });
});

test('a PENDING child fiber fails activation and rolls back', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('pending-child', 'index.mjs'));
    failedWith(a, /requires `sessionProjections`/);
    assert.equal(core.messages.filter((m) => m.method === 'registry/unregister').length, 1);
  });
});

for (const [entry, service] of [['ctx-provide.mjs', 'llm'], ['root-provide.mjs', 'sessions'], ['reflect-provide.mjs', 'credentials'], ['service.mjs', 'tools']]) {
  test(`providing a core service is refused through ${entry.replace('.mjs', '')}`, async () => {
    await withCore({}, async (core) => {
      failedWith(await core.activate(plugin('provide-routes', entry)), new RegExp(`may not provide core service \`${service}\``));
    });
  });
}

test('a plugin may provide a service of its own name', async () => {
  await withCore({}, async (core) => {
    ok(await core.activate(plugin('provide-routes', 'own-service.mjs')));
  });
});

test('a listener for an event the host never emits is refused', async () => {
  await withCore({}, async (core) => {
    failedWith(await core.activate(plugin('provide-routes', 'listener.mjs')), /tools\/post-execute/);
  });
});

test('deactivation awaits async disposers and answers {disposed, leaked}', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('slow-tool', 'index.mjs'));
    ok(a);
    const handle = core.handleOf('slow_wait');
    const call = core.callTool(handle, { ms: 100 });
    await sleep(20);
    const t0 = Date.now();
    const d = await core.request('ext/deactivate', { owner: a.owner });
    const took = Date.now() - t0;
    assert.deepEqual(d.result, { disposed: true, leaked: [] });
    assert.ok(took >= 280, `deactivate answered after ${took} ms, before the 300 ms disposer`);
    assert.deepEqual((await call).result.structured, { waited: 100 });
    assert.equal((await core.callTool(handle, { ms: 1 })).error.code, -32001);
    const unknown = await core.request('ext/deactivate', { owner: ownerRef('nobody') });
    assert.deepEqual(unknown.result, { disposed: true, leaked: [] });
  });
});

test('a disposer that never settles: disposed false within the deadline, owner gone', async () => {
  await withCore({ limits: { dispose_deadline_ms: 400 } }, async (core) => {
    const a = await core.activate(plugin('dirty-dispose', 'index.mjs'));
    ok(a);
    const t0 = Date.now();
    const d = await core.request('ext/deactivate', { owner: a.owner });
    assert.equal(d.result.disposed, false);
    assert.ok(Array.isArray(d.result.leaked));
    assert.ok(Date.now() - t0 < 2000);
    assert.equal((await core.callTool(core.handleOf('dirty_probe'), {})).error.code, -32001);
  });
});

test('host/shutdown deactivates every owner, answers {} and exits 0', async () => {
  const { FakeCore } = await import('./harness.mjs');
  const core = new FakeCore({});
  await core.handshake();
  ok(await core.activate(plugin('tool', 'index.mjs')));
  const r = await core.request('host/shutdown', {});
  assert.deepEqual(r.result, {});
  assert.deepEqual(await core.exited, { code: 0, signal: null });
  assert.ok(methods(core).includes('registry/unregister'));
});
