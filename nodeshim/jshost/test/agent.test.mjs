// The agent's services in the host: sessions, subagents and skills become core/call requests
// with the invocation's ticket; the older subagents.start and the other methods refuse by
// name; outside an invocation nothing reaches the core; on Node and Bun.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const TICKET = 'tkt-agent-1';

const text = (t, structured) => ({ result: { content: [{ type: 'text', text: t }], is_error: false, structured } });

test('the agent services reach the core through core/call with the ticket', async () => {
  const seen = [];
  await withCore({
    coreCall: (p) => {
      seen.push(p);
      switch (p.name) {
        case 'sessions_flush': return text('session saved', { saved: true });
        case 'subagents_start': return text('started', { child_id: 'c1', tools: ['read'] });
        case 'subagents_result': return text('done', { child_id: 'c1', status: 'completed', text: 'looks fine' });
        case 'subagents_dispose': return text('disposed', { disposed: true });
        case 'skills_list': return text('review', { skills: [{ name: 'review', description: 'Review', path: '/s/review/SKILL.md' }] });
        case 'git_review_scope': return text('main\n', {});
      }
      return { error: { code: -32002, message: `core/call refused: ${p.name}` } };
    },
    userAsk: () => ({ result: { kind: 'choice', choice: 'yes' } }),
  }, async (core) => {
    const a = await core.activate(plugin('agent-services', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    const r = (await core.callTool(core.handleOf('review_scope'), {}, { ticket: TICKET, session_id: 's1', agent_id: 'a1' })).result.structured;
    assert.deepEqual(r, {
      provider: { name: 'spawn', inheritsParentContext: false },
      saved: { ok: 'saved' },
      child: { ok: { tools: ['read'], status: 'completed', text: 'looks fine' } },
      answer: { ok: { kind: 'choice', choice: 'yes' } },
      skills: { ok: ['review'] },
      branch: { ok: 'main' },
    });
    assert.deepEqual(seen.map((p) => [p.name, p.ticket, p.owner.plugin_id === a.owner.plugin_id]), [
      ['sessions_flush', TICKET, true], ['subagents_start', TICKET, true], ['subagents_result', TICKET, true],
      ['subagents_dispose', TICKET, true], ['skills_list', TICKET, true], ['git_review_scope', TICKET, true],
    ]);
    assert.deepEqual(seen[1].input, { prompt: 'Review the change.', persona: 'You are a careful reviewer.', tool_filter: { allow: ['read', 'grep'], deny: ['grep'] } });
    const old = (await core.callTool(core.handleOf('old_start'), {}, { ticket: TICKET })).result.structured;
    assert.equal(old.error, 'NotProvidedError');
    assert.match(old.message, /`subagents.start` is not provided by cwx/);
    const before = seen.length;
    const none = (await core.callTool(core.handleOf('widen_child'), {}, {})).result.structured; // no ticket: no invocation
    assert.equal(none.error, 'NO_INVOCATION', JSON.stringify(none));
    assert.equal(seen.length, before, 'nothing reached the core');
  });
});

test('a refusal from the core is REFUSED, with its message', async () => {
  await withCore({
    coreCall: (p) => ({ error: { code: -32002, message: `core/call refused: \`${p.name}\` is an agent service this agent does not provide` } }),
  }, async (core) => {
    const a = await core.activate(plugin('agent-services', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    const r = (await core.callTool(core.handleOf('widen_child'), {}, { ticket: TICKET, agent_id: 'a1' })).result.structured;
    assert.equal(r.error, 'REFUSED');
    assert.match(r.message, /`subagents_start` is an agent service this agent does not provide/);
  });
});
