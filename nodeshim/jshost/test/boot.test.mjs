// Boot: --tier parsing, host/hello, stdout off the channel, exit on fd 3 end (own process group),
// the parent watchdog, process.exit/abort refused for plugins.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  BUNDLE, FakeCore, IS_BUN, helloSHA256, RUNTIME, frame, methods, plugin, runtimeArgs, runtimeEnv, sha256File, sleep, test, withCore,
} from './harness.mjs';

function runHost(args, input) {
  return new Promise((resolve) => {
    const p = spawn(RUNTIME, [...runtimeArgs(), BUNDLE, ...args], { env: runtimeEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('exit', (code, signal) => resolve({ code, signal, stderr }));
    if (input) p.stdin.write(input);
    p.stdin.end();
  });
}

for (const [args, why] of [[['--tier=weird'], 'unknown tier'], [['--tier'], 'bare --tier'], [['--tier=plugin', '--tier=builtin'], 'twice']]) {
  test(`--tier misuse exits 64: ${why}`, async () => {
    const r = await runHost(args);
    assert.equal(r.code, 64, r.stderr);
    assert.match(r.stderr, /tier/);
  });
}

test('hello reports digest, runtime and tier; no --tier means plugin', async () => {
  const core = new FakeCore({ args: [] });
  try {
    const { hello, init } = await core.handshake();
    assert.deepEqual(init.result, {});
    const p = hello.params;
    assert.equal(p.bundle_sha256, helloSHA256());
    assert.equal(p.tier, 'plugin');
    assert.deepEqual(p.protocol, { min: 1, max: 1 });
    // the table the build wrote beside the module files, the one core/bundle pins
    const table = JSON.parse(readFileSync(join(dirname(BUNDLE), 'builtin-modules.json'), 'utf8'));
    assert.deepEqual(p.builtin_modules, table);
    for (const m of table) assert.equal(sha256File(join(dirname(BUNDLE), 'builtin', `${m.id}.mjs`)), m.sha256);
    assert.deepEqual(p.runtime, IS_BUN ? { name: 'bun', version: Bun.version } : { name: 'node', version: process.versions.node });
    assert.equal(core.messages[0].method, 'host/hello', 'hello is the first frame');
    assert.deepEqual(methods(core).slice(0, 3), ['host/hello', 'result', 'host/ready']);
  } finally {
    await core.close();
  }
});

test('--tier=builtin is reported in hello', async () => {
  await withCore({ args: ['--tier=builtin'] }, async (core) => {
    const hello = core.messages.find((m) => m.method === 'host/hello');
    assert.equal(hello.params.tier, 'builtin');
  });
});

test('a plugin writing to stdout leaves the channel intact', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('stdout-writer', 'index.mjs'));
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    const r = await core.callTool(core.handleOf('print_probe'), {});
    assert.equal(r.result.content[0].text, 'printed');
    const pong = await core.request('host/ping', {});
    assert.deepEqual(pong.result, {});
    // console.* of plugin code is attributed: it reaches the core as a log notification
    const logged = core.messages.filter((m) => m.method === 'log').map((m) => JSON.stringify(m.params));
    assert.ok(logged.some((l) => l.includes('console.log while loading')), `log notifications: ${logged.join(' | ')}`);
    assert.match(core.stderr, /process\.stdout\.write while loading/);
    assert.ok(logged.some((l) => l.includes('CWX1 printed from a tool')), `log notifications: ${logged.join(' | ')}`);
  });
});

test('fd 3 end: a group-leading host kills its own process group', async () => {
  const core = new FakeCore({ detached: true });
  await core.handshake();
  core.channelIn.end();
  const r = await core.exited;
  assert.equal(r.signal, 'SIGKILL', `expected death by SIGKILL, got ${JSON.stringify(r)}; ${core.stderr}`);
});

test('fd 3 end: a host that leads no group exits 0', async () => {
  const core = new FakeCore({});
  await core.handshake();
  core.channelIn.end();
  const r = await core.exited;
  assert.deepEqual(r, { code: 0, signal: null });
});

test('watchdog: the host dies when CWX_HOST_PARENT_PID is gone, even while a plugin blocks the loop', async () => {
  const parent = spawn('sleep', ['60'], { stdio: 'ignore' });
  const core = new FakeCore({ env: { CWX_HOST_PARENT_PID: String(parent.pid) } });
  try {
    await core.handshake();
    const a = await core.activate(plugin('hang-tool', 'index.mjs'));
    assert.equal(a.result.status, 'ok');
    void core.callTool(core.handleOf('hang_probe'), {}); // blocks forever
    await sleep(300);
    parent.kill('SIGKILL');
    let timer;
    const r = await Promise.race([core.exited, new Promise((res) => { timer = setTimeout(() => res('still running'), 8000); })]);
    clearTimeout(timer);
    assert.notEqual(r, 'still running', 'the watchdog did not stop the host');
    assert.equal(r.signal, 'SIGKILL');
  } finally {
    parent.kill('SIGKILL');
    await core.close();
  }
});

test('process.exit and process.abort throw for plugins, and the attempt faults the plugin', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('faults', 'index.mjs'));
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    const r = await core.callTool(core.handleOf('exit_probe'), {});
    assert.match(r.result.structured.exit, /`process\.exit\(3\)` is refused: plugin code may not end the cwx extension host/);
    // the first attempt faulted the plugin; the second was refused all the same
    assert.match(r.result.structured.abort, /`process\.abort\(\)` is refused/);
  });
});

test('raw frames split across writes are reassembled', async () => {
  await withCore({}, async (core) => {
    const bytes = frame({ jsonrpc: '2.0', id: 900, method: 'host/ping', params: {} });
    const p = new Promise((resolve) => core.pending.set(900, resolve));
    for (const b of bytes) {
      core.write(Buffer.from([b]));
    }
    assert.deepEqual((await p).result, {});
  });
});

test('crash fixtures kill the host: in activation and in a tool', async () => {
  for (const [dir, act] of [['crash-activation', null], ['crash-tool', 'crash_probe']]) {
    const core = new FakeCore({});
    try {
      await core.handshake();
      const a = core.activate(plugin(dir, 'index.mjs'));
      if (act) {
        assert.equal((await a).result.status, 'ok');
        void core.callTool(core.handleOf(act), {});
      }
      assert.deepEqual(await core.exited, { code: null, signal: 'SIGKILL' });
    } finally {
      await core.close();
    }
  }
});

test('memory-hog holds off-heap memory on request', async () => {
  await withCore({}, async (core) => {
    assert.equal((await core.activate(plugin('memory-hog', 'index.mjs'))).result.status, 'ok');
    const r = await core.callTool(core.handleOf('memory_hog'), { mib: 128 });
    assert.deepEqual(r.result.structured, { held_mib: 128 });
  });
});
