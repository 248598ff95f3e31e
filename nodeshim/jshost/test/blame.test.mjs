// Blame: a plugin's attempt to end the host is refused and reported as its fault, and a
// callback that holds the event loop is named to the core (host/busy) by the watchdog thread.
import assert from 'node:assert/strict';
import { plugin, sleep, test, withCore } from './harness.mjs';

const KINDS = ['kill', 'kill0', 'killall', 'abort', 'exit', 'reallyExit'];
const ATTEMPT = {
  kill: /`process\.kill\(\d+, "SIGKILL"\)` is refused/,
  kill0: /`process\.kill\(0, "SIGKILL"\)` is refused/,
  killall: /`process\.kill\(-1, "SIGKILL"\)` is refused/,
  abort: /`process\.abort\(\)` is refused/,
  exit: /`process\.exit\(1\)` is refused/,
  reallyExit: /`process\.reallyExit\(1\)` is refused/,
};

for (const kind of KINDS) {
  test(`an attempt to end the host (${kind}) from a timer is refused and faults its owner`, async () => {
    await withCore({}, async (core) => {
      const a = await core.activate(plugin('crash-kinds', 'index.mjs'), { pluginId: 'killer' });
      assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
      const other = await core.activate(plugin('tool', 'index.mjs'), { pluginId: 'neighbour' });
      assert.equal(other.result.status, 'ok');
      assert.equal((await core.callTool(core.handleOf('crash_kinds_arm'), { kind, later: true })).result.content[0].text, 'armed');
      const f = await core.waitFor((m) => m.method === 'ext/faulted', 5000, 'ext/faulted');
      assert.deepEqual(f.params.owner, a.owner);
      assert.match(f.params.error, /^tried to end the extension host: HostEndRefused: /);
      assert.match(f.params.error, ATTEMPT[kind]);
      // the host lives on, and the neighbour answers
      assert.equal((await core.callTool(core.handleOf('echo_text'), { text: 'ok', mode: 'string' })).result.content[0].text, 'ok');
      assert.equal(core.messages.filter((m) => m.method === 'ext/faulted').length, 1, 'one report');
    });
  });
}

test('signal 0 and other processes stay reachable through process.kill', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('pid-probe', 'index.mjs'));
    assert.equal(a.result.status, 'ok');
    const self = await core.callTool(core.handleOf('pid_probe'), { pid: core.proc.pid });
    assert.equal(self.result.structured.ok, true, JSON.stringify(self));
    const none = await core.callTool(core.handleOf('pid_probe'), { pid: 2 ** 22 + 1, signal: 'SIGTERM' });
    assert.equal(none.result.structured.code, 'ESRCH', JSON.stringify(none));
    assert.equal(core.messages.filter((m) => m.method === 'ext/faulted').length, 0);
  });
});

test('an endless loop in a timer is named to the core by the watchdog (host/busy)', async () => {
  await withCore({}, async (core) => {
    const other = await core.activate(plugin('tool', 'index.mjs'), { pluginId: 'neighbour' });
    assert.equal(other.result.status, 'ok');
    const a = await core.activate(plugin('crash-kinds', 'index.mjs'), { pluginId: 'looper' });
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    void core.callTool(core.handleOf('crash_kinds_arm'), { kind: 'loop', later: true });
    const busy = await core.waitFor((m) => m.method === 'host/busy', 5000, 'host/busy');
    assert.deepEqual(busy.params, { owner: a.owner });
    core.proc.kill('SIGKILL');
  });
});

test('a long callback that returns is named, then cleared; short ones are never named', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('slow-sync', 'index.mjs'), { pluginId: 'slow' });
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    for (let i = 0; i < 20; i++) await core.callTool(core.handleOf('spin_ms'), { ms: 1 });
    await sleep(300);
    assert.equal(core.messages.filter((m) => m.method === 'host/busy').length, 0, 'no note for short callbacks');
    const r = await core.callTool(core.handleOf('spin_ms'), { ms: 1500 });
    assert.equal(r.result.content[0].text, 'spun', JSON.stringify(r));
    const notes = core.messages.filter((m) => m.method === 'host/busy').map((m) => m.params);
    assert.deepEqual(notes, [{ owner: a.owner }, {}]);
    // the clear came before the tool's answer
    const order = core.messages.map((m) => m.method ?? `answer:${m.id}`);
    assert.ok(order.lastIndexOf('host/busy') < order.indexOf(`answer:${r.id}`), order.join(' '));
  });
});

test('an uncaught exception in a listener faults the listener\'s owner', async () => {
  await withCore({}, async (core) => {
    const a = await core.activate(plugin('crash-kinds', 'index.mjs'), { pluginId: 'thrower' });
    assert.equal(a.result.status, 'ok');
    await core.callTool(core.handleOf('crash_kinds_arm'), { kind: 'listener', later: true });
    const f = await core.waitFor((m) => m.method === 'ext/faulted', 5000, 'ext/faulted');
    assert.deepEqual(f.params, { owner: a.owner, error: 'Error: thrown in a listener' });
  });
});
