// Large tool results: a string is sent once (no `structured` copy), a result just under the
// frame limit arrives intact, and one over it is answered at once as the plugin's failure.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const MiB = 1 << 20;

test('large results: sent once, intact under the limit, answered at once over it', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('big-result', 'index.mjs'));
    assert.equal(a.result.status, 'ok');
    const h = core.handleOf('big_result');
    const cases = [
      { name: 'a 20 MiB string, sent once', input: { bytes: 20 * MiB }, text: 20 * MiB },
      { name: 'a 20 MiB object, text and structured', input: { bytes: 20 * MiB, object: true }, tooLarge: true },
      { name: 'a 33 MiB string', input: { bytes: 33 * MiB }, tooLarge: true },
      { name: 'a small object keeps structured', input: { bytes: 3, object: true }, structured: { text: 'abc' } },
    ];
    for (const c of cases) {
      const started = Date.now();
      const r = await core.callTool(h, c.input);
      const took = Date.now() - started;
      if (c.tooLarge) {
        assert.equal(r.error?.code, -32000, c.name);
        assert.match(r.error.message, /^result of \d+ bytes exceeds the 32 MiB frame limit$/, c.name);
        const n = Number(/of (\d+) bytes/.exec(r.error.message)[1]);
        assert.ok(n > 32 * MiB, `${c.name}: ${n} bytes`);
        assert.ok(took < 10000, `${c.name}: answered after ${took} ms`);
        continue;
      }
      assert.equal(r.error, undefined, c.name);
      if (c.text !== undefined) {
        assert.equal(r.result.content[0].text.length, c.text, c.name);
        assert.equal(r.result.structured, undefined, `${c.name}: a string is not sent twice`);
      }
      if (c.structured !== undefined) assert.deepEqual(r.result.structured, c.structured, c.name);
    }
    // the host is still serving after the refusal
    assert.equal((await core.callTool(h, { bytes: 1 })).result.content[0].text, 'a');
  });
}, 60000);
