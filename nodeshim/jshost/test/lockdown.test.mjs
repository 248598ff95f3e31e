// Native-code lockdown: every entry point refused with the lock, reachable without it (so the
// test proves the lock, not the absence of the API), and the host refuses to run when a lock
// does not hold.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BUNDLE, IS_BUN, RUNTIME, plugin, runtimeArgs, runtimeEnv, test, withCore } from './harness.mjs';

async function probe(o) {
  return withCore(o, async (core) => {
    const a = await core.activate(plugin('native-probe', 'index.mjs'));
    assert.equal(a.result.status, 'ok', JSON.stringify(a.res));
    return (await core.callTool(core.handleOf('native_probe'), {})).result.structured;
  });
}

test('every native-code entry point is refused under the lockdown', async () => {
  const r = await probe({});
  for (const [k, v] of Object.entries(r)) {
    if (v === 'absent') continue;
    assert.equal(v, 'refused', `${k}: ${v}`);
  }
  assert.ok(Object.keys(r).length >= (IS_BUN ? 10 : 4));
});

test('each entry point is reachable again when the lockdown is removed', async () => {
  const r = await probe({
    env: { CWX_HOST_UNSAFE_NO_LOCKDOWN: '1' },
    runtimeArgs: IS_BUN ? ['--no-install', '--no-env-file', '--config=/dev/null'] : ['--max-old-space-size=256'],
  });
  for (const [k, v] of Object.entries(r)) {
    if (v === 'absent') continue;
    if (k === 'ShadowRealm') continue; // engine-wide flag; checked by the next test
    assert.match(v, /^reachable/, `${k}: ${v}`);
  }
});

test('the host exits with an error when a lock does not hold', async () => {
  // Node without --no-experimental-sqlite, Bun without BUN_JSC_useShadowRealm=0
  const env = runtimeEnv();
  delete env.BUN_JSC_useShadowRealm;
  const args = IS_BUN ? runtimeArgs() : runtimeArgs().filter((a) => a !== '--no-experimental-sqlite');
  const r = await new Promise((resolve) => {
    const p = spawn(RUNTIME, [...args, BUNDLE], { env, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = 0; // what reached the channel (fd 4)
    p.stdio[4].on('data', (d) => { stdout += d.length; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
  assert.equal(r.code, 70, r.stderr);
  assert.match(r.stderr, IS_BUN ? /lockdown does not hold: .*ShadowRealm/ : /lockdown does not hold: .*node:sqlite/);
  assert.equal(r.stdout, 0, 'no hello from a host that does not hold its locks');
});

// Node only: Bun has no such flag; Node's is a run-time flag a startup snapshot is built without
if (!IS_BUN) test('on Node the host exits when __proto__ is reachable (no --disable-proto=throw)', async () => {
  const args = runtimeArgs().filter((a) => a !== '--disable-proto=throw');
  const r = await new Promise((resolve) => {
    const p = spawn(RUNTIME, [...args, BUNDLE], { env: runtimeEnv(), stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = 0;
    p.stdio[4].on('data', (d) => { stdout += d.length; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
  assert.equal(r.code, 70, r.stderr);
  assert.match(r.stderr, /lockdown does not hold: .*__proto__ is reachable/);
  assert.equal(r.stdout, 0, 'no hello from a host that does not hold its locks');
});
