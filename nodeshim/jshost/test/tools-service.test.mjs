// The DSH `tools` and `commands` services are complete or refuse by name: `tools.get` looks up
// the tools live in this host, `deferLoading` is accepted, and any other method throws
// "`<service>.<method>` is not provided by cwx", which the activation failure names.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

for (const [entry, method] of [['index.mjs', 'tools.presentAs'], ['commands.mjs', 'commands.list'], ['restrict.mjs', 'tools.restrict']]) {
  test(`an unprovided DSH method fails the activation by name: ${method}`, async () => {
    await withCore({}, async (core) => {
      const a = await core.activate(plugin('dsh-present-as', entry));
      assert.equal(a.result.status, 'failed', JSON.stringify(a.res));
      assert.match(a.result.diagnostic, new RegExp(`\`${method.replace('.', '\\.')}\` is not provided by cwx`));
      assert.doesNotMatch(a.result.diagnostic, /is not a function/);
    });
  });
}

test('tools.get returns a frozen view of a tool live in this host, or null', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('dsh-tools-get', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    const found = (await core.callTool(core.handleOf('lookup_tool'), { name: 'deferred_probe' })).result.structured;
    assert.deepEqual(found, {
      view: {
        name: 'deferred_probe',
        description: 'Registered with the deferLoading hint.',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        plugin: 'fixture',
      },
      frozen: true,
    });
    for (const name of ['nope', 'read_file', 'Deferred_Probe']) {
      const r = (await core.callTool(core.handleOf('lookup_tool'), { name })).result.structured;
      assert.deepEqual(r, { view: null, frozen: null }, name);
    }
  });
});
