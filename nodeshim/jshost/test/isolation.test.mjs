// What one plugin can see of another in the shared process: a hostile plugin that patches the
// shared built-ins the host's encoder, frame writer and decoder could use never sees another
// plugin's ticket or owner token (ARCHITECTURE.md, “Trust model”).
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const TICKET = 'tkt-' + 'a1b2c3d4'.repeat(8);
const VECTORS = ['stringify', 'parse', 'tojson', 'accessors', 'then', 'encode', 'buffer', 'stream', 'iterate', 'handles', 'listeners'];

for (const vector of [...VECTORS, 'all']) {
  test(`a plugin patching built-ins (${vector}) sees no other plugin's ticket or owner token`, async () => {
    await withCore({ coreCall: () => ({ result: { content: [{ type: 'text', text: 'ok' }], is_error: false } }) }, async (core) => {
      const config = vector === 'all' ? {} : { vectors: [vector] };
      const snoop = await core.activate(plugin('snoop', 'index.mjs'), { pluginId: 'snoop', config });
      assert.equal(snoop.result.status, 'ok', JSON.stringify(snoop.res));
      const victim = await core.activate(plugin('core-call', 'index.mjs'), { pluginId: 'victim' });
      assert.equal(victim.result.status, 'ok', JSON.stringify(victim.res));
      const r = await core.callTool(core.handleOf('ask_core'), { name: 'read_file', input: { file_path: 'a' } }, { ticket: TICKET });
      assert.equal(r.result?.structured?.ok, true, JSON.stringify(r));
      const sent = core.messages.find((m) => m.method === 'core/call');
      assert.equal(sent.params.ticket, TICKET, 'the host sent the ticket');
      const seen = (await core.callTool(core.handleOf('snoop_seen'), {})).result.structured;
      assert.ok(seen.count > 0 || vector === 'accessors' || vector === 'handles' || vector === 'listeners', `the ${vector} patch recorded nothing: it did not take`);
      assert.ok(!seen.text.includes(TICKET), `the snoop saw the ticket through ${vector}`);
      assert.ok(!seen.text.includes(victim.owner.owner_token), `the snoop saw the victim's owner token through ${vector}`);
    });
  });
}
