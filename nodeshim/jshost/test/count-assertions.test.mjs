// The assertion counter (scripts/count-assertions.mjs): what counts as a type or non-null
// assertion, which files are left out, and the exit status over a limit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countAssertions } from '../scripts/count-assertions.mjs';
import { PKG, RUNTIME, test } from './harness.mjs';

const kinds = (src) => {
  const r = countAssertions('x.ts', src);
  return { assertions: r.assertions.map((a) => a.text), nonNull: r.nonNull.map((a) => a.text) };
};

test('as and <T> assertions count, as const and satisfies do not', () => {
  assert.deepEqual(kinds('const a = b as string;\nconst c = <number>d;\nconst e = [1] as const;\nconst f = <const>["x"];\nconst g = {} satisfies object;\n'),
    { assertions: ['b as string', '<number>d'], nonNull: [] });
  assert.deepEqual(kinds('const a = b as unknown as T;\n').assertions, ['b as unknown as T', 'b as unknown']);
});

test('the word as in strings, comments and import or export clauses is not an assertion', () => {
  assert.deepEqual(kinds("import { a as b } from 'm';\nexport { b as c };\nimport * as ns from 'n';\n// x as T\nconst s = 'y as T';\n"),
    { assertions: [], nonNull: [] });
});

test('x! and definite assignment count as non-null; !x and x !== y do not', () => {
  assert.deepEqual(kinds('let a!: string;\nclass K { p!: number }\nconst b = c!.d;\nconst e = !f;\nconst g = h !== i;\n'),
    { assertions: [], nonNull: ['a!: string', 'p!: number', 'c!'] });
});

test('the CLI leaves out the generated protocol types and the Cordis adapter, and fails over a limit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cwx-count-'));
  try {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'protocol.generated.ts'), 'const a = b as T;\n');
    writeFileSync(join(dir, 'cordis-adapter.ts'), 'const a = b as T;\n');
    writeFileSync(join(dir, 'types.d.ts'), 'declare const a: T;\n');
    writeFileSync(join(dir, 'sub', 'one.ts'), 'const a = b as T;\nconst c = d!;\n');
    const run = (...args) => spawnSync(RUNTIME, [join(PKG, 'scripts', 'count-assertions.mjs'), ...args, dir], { encoding: 'utf8' });
    const ok = run('--max-assertions', '1', '--max-nonnull', '1');
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^sub\/one\.ts +1 +1$/m);
    assert.match(ok.stdout, /^total +1 +1$/m);
    assert.match(ok.stdout, /^\(1 files under /m); // the two left-out files and the .d.ts are not read
    const over = run('--max-assertions', '0', '--max-nonnull', '1');
    assert.equal(over.status, 1);
    assert.match(over.stderr, /1 type assertions in .*, the limit is 0/);
    assert.equal(run('--max-nonnull', '0').status, 1);
    assert.equal(run('--max-nonnull').status, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
