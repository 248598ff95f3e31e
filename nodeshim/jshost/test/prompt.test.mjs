// ctx.prompt.registerSection and DSH's ctx.systemPrompt.section: registry/register of kind
// prompt_section (spec.name the id, spec.description the text), withdrawn with its effect.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const registers = (core) => core.messages.filter((m) => m.method === 'registry/register' && m.params.kind === 'prompt_section');

test('both spellings register a prompt_section with the corpus shape; the effect withdraws it', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('prompt-sections', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    assert.deepEqual(registers(core).map((m) => m.params.spec), [
      { name: 'style', description: 'Answer in short sentences.\n\tCite files by path.' },
      { name: 'persona', description: 'You review code for a careful team.' },
    ]);
    assert.deepEqual(a.result.tools, []);
    assert.deepEqual(a.result.commands, ['drop-style']);
    const style = core.handleOf('style', 'prompt_section');
    const r = await core.runCommand(core.handleOf('drop-style', 'command'), '');
    assert.deepEqual(r.result, { kind: 'success', text: 'dropped' });
    const un = core.messages.filter((m) => m.method === 'registry/unregister').map((m) => m.params.handle);
    assert.deepEqual(un, [style]);
  });
});

test('a section the core refuses fails the activation naming it', async () => {
  const admit = (spec) => (spec.name === 'Bad Id' ? { refused: 'prompt section id "Bad Id" must match ^[a-z][a-z0-9_-]{0,63}$' } : undefined);
  await withCore({ admit }, async (core) => {
    const a = await core.activate(plugin('prompt-sections', 'index.mjs'), { config: { bad: true } });
    assert.equal(a.result?.status, 'failed', JSON.stringify(a.res));
    assert.match(a.result.diagnostic, /prompt_section `Bad Id` refused: prompt section id "Bad Id" must match/);
  });
});
