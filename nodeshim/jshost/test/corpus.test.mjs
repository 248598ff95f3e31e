// The shared protocol corpus (testdata/protocol, written from the Go side): the JS validator's
// verdict must equal the recorded one for every case on every tier, on Node and on Bun.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PKG, REPO, RUNTIME, test } from './harness.mjs';

const dir = join(REPO, 'testdata', 'protocol');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));

test('the corpus holds cases', () => {
  assert.ok(files.length >= 23, `only ${files.length} corpus files`);
});

test('npm run corpus: every verdict equals the corpus, with the expected reason', () => {
  const out = JSON.parse(execFileSync(RUNTIME, [join(PKG, 'scripts', 'corpus.mjs'), '--json', ...files], { encoding: 'utf8' }));
  assert.ok(out.length >= files.length);
  const wrong = out.filter((o) => o.valid !== o.expected || !o.reasonOk);
  assert.deepEqual(wrong, [], 'verdicts that disagree with the corpus');
});
