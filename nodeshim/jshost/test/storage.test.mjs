// ctx.storage: owner-local plain JSON in the plugin's data_dir, on Node and Bun.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plugin, sleep, test, withCore } from './harness.mjs';

const KIB = 1024;

async function withStorage(fn) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cwx-storage-'));
  try {
    await withCore({}, async (core) => {
      const a = await core.activate(plugin('storage', 'index.mjs'), { dataDir });
      assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
      const store = async (input) => (await core.callTool(core.handleOf('store'), input)).result.structured;
      await fn({ core, store, dataDir, dir: join(dataDir, 'storage') });
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test('set, get, list and delete keep plain JSON, one file per key', async () => {
  await withStorage(async ({ store, dir }) => {
    assert.deepEqual(await store({ op: 'get', key: 'missing' }), { value: null, found: false });
    assert.deepEqual(await store({ op: 'list' }), { keys: [] });
    const value = { n: 1, list: [true, null, 'x'], nested: { a: 1.5 } };
    assert.deepEqual(await store({ op: 'set', key: 'b.state', value }), { ok: true });
    assert.deepEqual(await store({ op: 'set', key: 'a', value: 'text' }), { ok: true });
    assert.deepEqual(await store({ op: 'get', key: 'b.state' }), { value, found: true });
    assert.deepEqual(await store({ op: 'list' }), { keys: ['a', 'b.state'] });
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'b.state.json'), 'utf8')), value);
    assert.deepEqual(await store({ op: 'delete', key: 'a' }), { deleted: true });
    assert.deepEqual(await store({ op: 'delete', key: 'a' }), { deleted: false });
    assert.deepEqual(await store({ op: 'list' }), { keys: ['b.state'] });
    assert.deepEqual(readdirSync(dir), ['b.state.json']);
  });
});

test('keys, values and the quota are bounded', async () => {
  await withStorage(async ({ store }) => {
    for (const [input, re] of [
      [{ op: 'set', key: '../escape', value: 1 }, /key "..\/escape" must match/],
      [{ op: 'get', key: '.hidden' }, /key ".hidden" must match/],
      [{ op: 'set', key: 'x'.repeat(129), value: 1 }, /must match/],
      [{ op: 'set-undefined', key: 'u' }, /holds a undefined, which is not JSON/],
      [{ op: 'set-map', key: 'm' }, /holds an object that is not plain JSON/],
      [{ op: 'set', key: 'big', value: 'x'.repeat(64 * KIB) }, /is 65538 bytes; the limit is 65536/],
    ]) {
      const r = await store(input);
      assert.equal(r.name, 'StorageError', JSON.stringify(r));
      assert.match(r.error, re);
    }
    const chunk = 'y'.repeat(64 * KIB - 2); // 64 KiB once quoted
    for (let i = 0; i < 16; i++) assert.deepEqual(await store({ op: 'set', key: `k${i}`, value: chunk }), { ok: true });
    const over = await store({ op: 'set', key: 'one-more', value: 1 });
    assert.match(over.error, /would make plugin fixture's storage 1048577 bytes; the limit is 1048576/);
    assert.deepEqual(await store({ op: 'set', key: 'k0', value: 'small' }), { ok: true }); // replacing frees its bytes
    assert.deepEqual(await store({ op: 'set', key: 'one-more', value: 1 }), { ok: true });
  });
});

test('corrupt data and symlinks are refused, never followed or repaired', async () => {
  await withStorage(async ({ store, dir, dataDir }) => {
    assert.deepEqual(await store({ op: 'set', key: 'ok', value: 1 }), { ok: true });
    writeFileSync(join(dir, 'bad.json'), '{"half": ');
    assert.match((await store({ op: 'get', key: 'bad' })).error, /`bad` is corrupt \(not JSON\); delete it/);
    const outside = join(dataDir, 'outside.json');
    writeFileSync(outside, '"secret"');
    symlinkSync(outside, join(dir, 'link.json'));
    assert.match((await store({ op: 'get', key: 'link' })).error, /`link` is a symlink; it is never followed/);
    assert.match((await store({ op: 'set', key: 'link', value: 2 })).error, /`link` is a symlink/);
    assert.equal(readFileSync(outside, 'utf8'), '"secret"');
    assert.deepEqual(await store({ op: 'delete', key: 'link' }), { deleted: true });
    assert.equal(readFileSync(outside, 'utf8'), '"secret"');
    rmSync(dir, { recursive: true });
    const elsewhere = join(dataDir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, dir);
    assert.match((await store({ op: 'set', key: 'x', value: 1 })).error, /is not a directory \(a symlink is never followed\)/);
    assert.deepEqual(readdirSync(elsewhere), []);
  });
});

test('concurrent writers are serialized: every write lands whole, the last one wins', async () => {
  await withStorage(async ({ store, dir }) => {
    const all = [];
    for (let i = 0; i < 20; i++) all.push({ op: 'set', key: 'shared', value: { i, pad: 'z'.repeat(4 * KIB) } }, { op: 'set', key: `own${i}`, value: i });
    const { results } = await store({ all });
    assert.ok(results.every((r) => r.ok), JSON.stringify(results.filter((r) => !r.ok)));
    assert.equal((await store({ op: 'get', key: 'shared' })).value.i, 19);
    assert.equal((await store({ op: 'list' })).keys.length, 21);
    assert.ok(readdirSync(dir).every((f) => f.endsWith('.json')), readdirSync(dir).join(' '));
  });
});

test('a host killed during writes leaves the old value or the new one, never a torn file', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cwx-storage-kill-'));
  const file = join(dataDir, 'storage', 'k.json');
  const values = ['a', 'b'].map((c) => c.repeat(60 * KIB));
  try {
    await withCore({}, async (core) => {
      const a = await core.activate(plugin('storage', 'index.mjs'), { dataDir });
      assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
      const all = Array.from({ length: 400 }, (_, i) => ({ op: 'set', key: 'k', value: values[i % 2] }));
      void core.callTool(core.handleOf('store'), { all }).catch(() => undefined);
      while (!existsSync(file)) await sleep(1);
      await sleep(20);
      core.proc.kill('SIGKILL');
    });
    assert.ok(values.includes(JSON.parse(readFileSync(file, 'utf8'))), 'the key holds a whole value');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('storage works only while its owner is live', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cwx-storage-gone-'));
  try {
    await withCore({}, async (core) => {
      const a = await core.activate(plugin('storage', 'index.mjs'), { dataDir });
      assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
      await core.callTool(core.handleOf('store'), { op: 'set', key: 'before', value: 1 });
      await core.callTool(core.handleOf('store_later'), {});
      const d = await core.request('ext/deactivate', { owner: a.owner });
      assert.ok(d.result, JSON.stringify(d));
      await sleep(400);
    });
    assert.deepEqual(readdirSync(join(dataDir, 'storage')), ['before.json']);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
