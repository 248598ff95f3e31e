// exec.core.call against the fake core: present only with a ticket, the ticket out of plugin
// code's reach, each error code, local refusals, and cancellation sending $/cancel.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const TICKET = 'tkt-' + 'A'.repeat(40);
const entry = plugin('core-call', 'index.mjs');

test('exec.core exists only when the call carried a ticket, and hides it', async () => {
  await withCore({}, async (core) => {
    await core.activate(entry);
    const h = core.handleOf('ask_core');
    const without = (await core.callTool(h, { mode: 'probe' })).result.structured;
    assert.equal(without.hasCore, false);
    assert.ok(!without.keys.includes('core'));
    const withT = (await core.callTool(h, { mode: 'probe' }, { ticket: TICKET })).result.structured;
    assert.equal(withT.hasCore, true);
    assert.deepEqual(withT.coreKeys, ['call']);
    assert.equal(withT.frozen, true);
    for (const s of [withT.json, withT.stack, JSON.stringify(withT.keys)]) assert.ok(!s.includes(TICKET));
  });
});

test('core/call carries owner, ticket, name and input; answers map to codes', async () => {
  const answers = {
    ok: { result: { content: [{ type: 'text', text: 'file body' }], is_error: false, structured: { n: 1 } } },
    refused: { error: { code: -32002, message: 'no' } },
    denied: { error: { code: -32003, message: 'declined' } },
    unavailable: { error: { code: -32001, message: 'gone' } },
    failed: { error: { code: -32000, message: 'broke' } },
    cancelled: { error: { code: -32800, message: 'cancelled' } },
  };
  const seen = [];
  await withCore({ coreCall: (p) => { seen.push(p); return answers[p.input.want]; } }, async (core) => {
    const a = await core.activate(entry);
    const h = core.handleOf('ask_core');
    for (const want of Object.keys(answers)) {
      const r = (await core.callTool(h, { name: 'read_file', input: { want } }, { ticket: TICKET })).result.structured;
      if (want === 'ok') {
        assert.deepEqual(r, { ok: true, isError: false, text: 'file body', structured: { n: 1 } });
      } else {
        assert.equal(r.ok, false);
        assert.equal(r.name, 'CoreCallError');
        assert.equal(r.code, want);
      }
    }
    assert.deepEqual(seen[0], { owner: a.owner, ticket: TICKET, name: 'read_file', input: { want: 'ok' } });
  });
});

test('bad names and non-JSON input are refused without a request', async () => {
  let calls = 0;
  await withCore({ coreCall: () => { calls++; return { error: { code: -32002, message: 'x' } }; } }, async (core) => {
    await core.activate(entry);
    const r = (await core.callTool(core.handleOf('ask_core'), { mode: 'local' }, { ticket: TICKET })).result.structured;
    assert.deepEqual(r.map((x) => x.code), ['refused', 'refused', 'refused', 'refused']);
    assert.equal(calls, 0);
  });
});

test('cancelling the tool sends $/cancel for its pending core/call', async () => {
  await withCore({ coreCall: () => 'never' }, async (core) => {
    await core.activate(entry);
    const call = core.callTool(core.handleOf('ask_core'), { name: 'shell', input: { command: 'true' } }, { ticket: TICKET });
    const req = await core.waitFor((m) => m.method === 'core/call', 10000, 'core/call');
    core.notify('$/cancel', { id: call.id });
    const cancel = await core.waitFor((m) => m.method === '$/cancel' && m.params.id === req.id, 10000, '$/cancel of core/call');
    assert.equal(cancel.params.id, req.id);
    assert.equal((await call).error.code, -32800);
  });
});
