// DSH's userQuestions.ask: user/ask with the invocation's ticket, typed answers, NO_PROVIDER,
// refusals by name and outside an invocation, on Node and Bun.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const TICKET = 'tkt-question-1';

async function withQuestions(userAsk, fn) {
  await withCore({ userAsk }, async (core) => {
    const a = await core.activate(plugin('questions', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    const ask = async (question, extra = { ticket: TICKET }) =>
      (await core.callTool(core.handleOf('ask_person'), { question }, extra)).result.structured;
    await fn({ core, ask, owner: a.owner });
  });
}

test('a question carries the ticket and the owner; the typed answer comes back', async () => {
  const seen = [];
  await withQuestions((p) => {
    seen.push(p);
    return { result: { kind: 'choice', choice: 'release' } };
  }, async ({ ask, owner }) => {
    const r = await ask({ question: 'Which branch?', options: ['main', { label: 'release', description: 'the release branch' }], allowText: true });
    assert.deepEqual(r, { answer: { kind: 'choice', choice: 'release' } });
    assert.deepEqual(seen, [{ owner, ticket: TICKET, question: { text: 'Which branch?', options: [{ label: 'main' }, { label: 'release', description: 'the release branch' }], allow_text: true } }]);
    assert.deepEqual(await ask('Anything else?'), { answer: { kind: 'choice', choice: 'release' } });
    assert.deepEqual(seen[1].question, { text: 'Anything else?' });
  });
});

test('NO_PROVIDER, refusals by name and a call without a ticket', async () => {
  let asked = 0;
  await withQuestions(() => {
    asked++;
    return { error: { code: -32002, message: 'NO_PROVIDER: no person is present to answer', data: { code: 'NO_PROVIDER' } } };
  }, async ({ ask }) => {
    assert.deepEqual(await ask('Proceed?'), { error: 'NO_PROVIDER', message: 'NO_PROVIDER: no person is present to answer' });
    for (const [q, re] of [
      [{ question: 'Proceed?', wait: true }, /`wait` is not provided by cwx/],
      [{ question: 'Proceed?', timeout: 10 }, /`timeout` is not provided by cwx/],
      [{ question: 42 }, /`question` must be a string/],
      [{ question: 'Proceed?', options: [{ name: 'x' }] }, /option 1 needs a string `label`/],
    ]) {
      const r = await ask(q);
      assert.equal(r.error, 'REFUSED', JSON.stringify(r));
      assert.match(r.message, re);
    }
    const none = await ask('Proceed?', {}); // a tool/call without a ticket: no invocation to ask in
    assert.equal(none.error, 'NO_INVOCATION', JSON.stringify(none));
    assert.equal(asked, 1, 'only the first question reached the core');
  });
});
