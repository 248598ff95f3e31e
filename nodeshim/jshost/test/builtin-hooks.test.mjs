// The builtin `hooks` module (dist/builtin/hooks.mjs, owner host:hooks): harness/run runs the
// configured command with the core's stdin, in its own process group, and reports exit status,
// bounded stdout and stderr and timeouts; the core judges them (core/cmdhooks).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PKG, ownerRef, sleep, test, withCore } from './harness.mjs';

const MODULE = join(PKG, 'dist', 'builtin', 'hooks.mjs');
const MAX = 16384;

const hooks = {
  ok: 'printf \'{"hookSpecificOutput":{"permissionDecision":"allow"}}\'',
  block: 'echo "Blocked: no rm -rf" >&2; exit 2',
  fail: 'echo oops >&2; exit 1',
  cat: 'cat',
  env: 'env | sort',
  pwd: 'pwd',
  flood: `head -c 40000 /dev/zero | tr '\\0' a; head -c 40000 /dev/zero | tr '\\0' b >&2`,
  multibyte: `printf x; i=0; while [ $i -lt 8200 ]; do printf 'é'; i=$((i+1)); done`,
  tree: 'sleep 300 & echo $!; sleep 300',
  treefile: 'sleep 300 & echo $! > "$CWX_PROJECT_DIR/pid"; sleep 300',
  escape: 'setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!; exit 0',
};

function config(timeoutMs = 60000) {
  return {
    hooks: Object.entries(hooks).map(([id, command]) => ({ id, command, timeout_ms: id === 'tree' ? timeoutMs : 60000 })),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    max_output_bytes: MAX,
    max_stdin_bytes: 65536,
  };
}

const event = (cwd, extra = {}) => ({
  session_id: 's1', transcript_path: '', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse',
  tool_name: 'Bash', tool_input: { command: 'rm -rf /tmp/x' }, tool_use_id: 'c1', ...extra,
});

function run(core, owner, point, query, extra = {}) {
  return core.request('harness/run', {
    owner, execution_id: 'c1', ticket: '', deadline_ms: 60000,
    hook: { event: 'PreToolUse', dialect: 'claude-code', point, matcher: 'Bash', query }, ...extra,
  });
}

/** gone reports whether pid no longer runs (absent, or a zombie waiting for its reaper). */
function gone(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function until(pred, ms = 10000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) return false;
    await sleep(20);
  }
  return true;
}

async function withHooks(cfg, fn) {
  const ws = mkdtempSync(join(tmpdir(), 'cwx-hooks-ws-'));
  try {
    await withCore({ args: ['--tier=builtin'] }, async (core) => {
      const owner = ownerRef('host:hooks');
      const a = await core.activate(MODULE, { owner, pluginName: 'hooks', config: cfg });
      assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
      await fn(core, owner, ws);
    });
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

test('hooks module: exit codes, stdin, environment and workspace', async () => {
  await withHooks(config(), async (core, owner, ws) => {
    const ok = (await run(core, owner, 'ok', event(ws))).result;
    assert.deepEqual(ok, { exit_code: 0, timed_out: false, stdout: '{"hookSpecificOutput":{"permissionDecision":"allow"}}', stderr: '', stdout_truncated: false, stderr_truncated: false });
    const block = (await run(core, owner, 'block', event(ws))).result;
    assert.equal(block.exit_code, 2);
    assert.equal(block.stderr, 'Blocked: no rm -rf\n');
    const fail = (await run(core, owner, 'fail', event(ws))).result;
    assert.equal(fail.exit_code, 1);
    assert.equal(fail.stderr, 'oops\n');

    const stdin = JSON.stringify(event(ws)) + '\n';
    assert.equal((await run(core, owner, 'cat', stdin)).result.stdout, stdin, 'a string query is the exact stdin');
    assert.equal((await run(core, owner, 'cat', event(ws))).result.stdout, JSON.stringify(event(ws)));

    const env = (await run(core, owner, 'env', event(ws))).result.stdout.trim().split('\n').map((l) => l.split('=')[0]);
    const allowed = new Set(['PATH', 'LANG', 'CWX_PROJECT_DIR', 'CLAUDE_PROJECT_DIR', 'PWD', 'SHLVL', '_', 'OLDPWD']);
    assert.deepEqual(env.filter((k) => !allowed.has(k)), [], 'only the allow-listed environment');
    assert.ok(env.includes('CWX_PROJECT_DIR') && env.includes('CLAUDE_PROJECT_DIR'));
    const dirs = (await run(core, owner, 'env', event(ws))).result.stdout;
    assert.match(dirs, new RegExp(`^CWX_PROJECT_DIR=${ws}$`, 'm'));
    assert.equal((await run(core, owner, 'pwd', event(ws))).result.stdout.trim(), ws);

    const unknown = await run(core, owner, 'nope', event(ws));
    assert.match(unknown.error?.message ?? '', /no hook `nope` is configured/);
    const dialect = await core.request('harness/run', { owner, execution_id: 'x', ticket: '', deadline_ms: 1000, hook: { event: 'PreToolUse', dialect: 'codex', point: 'ok', query: {} } });
    assert.match(dialect.error?.message ?? '', /only Claude Code command hooks/);
    const stranger = await run(core, ownerRef('host:hooks'), 'ok', event(ws));
    assert.match(stranger.error?.message ?? '', /serves no harness\/run/);
    const big = await run(core, owner, 'cat', 'x'.repeat(65537));
    assert.match(big.result?.error ?? '', /over 65536 bytes/);
  });
});

test('hooks module: stdout and stderr are kept to 16 KiB each, cut between characters', async () => {
  await withHooks(config(), async (core, owner, ws) => {
    const r = (await run(core, owner, 'flood', event(ws))).result;
    assert.equal(r.exit_code, 0);
    assert.equal(Buffer.byteLength(r.stdout), MAX);
    assert.equal(Buffer.byteLength(r.stderr), MAX);
    assert.equal(r.stdout, 'a'.repeat(MAX));
    assert.ok(r.stdout_truncated && r.stderr_truncated);
    const m = (await run(core, owner, 'multibyte', event(ws))).result;
    assert.ok(m.stdout_truncated);
    assert.equal(m.stdout, 'x' + 'é'.repeat(MAX / 2 - 1), 'whole characters only, within the bound');
  });
});

test('hooks module: a timeout kills the whole process tree', async () => {
  await withHooks(config(1000), async (core, owner, ws) => {
    const r = (await run(core, owner, 'tree', event(ws))).result;
    assert.equal(r.timed_out, true);
    assert.equal(r.signal, 'SIGKILL');
    const pid = Number(r.stdout.trim());
    assert.ok(pid > 0, r.stdout);
    assert.ok(await until(() => gone(pid)), `the hook's background sleep ${pid} outlived the timeout`);
  });
});

test('hooks module: cancelling the run kills the tree; a descendant in a session of its own is outside the bound', async () => {
  await withHooks(config(), async (core, owner, ws) => {
    const p = run(core, owner, 'treefile', event(ws));
    const pidFile = join(ws, 'pid');
    assert.ok(await until(() => { try { return readFileSync(pidFile, 'utf8').endsWith('\n'); } catch { return false; } }), 'the hook started');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    assert.ok(!gone(pid));
    core.notify('$/cancel', { id: p.id });
    const res = await p;
    assert.ok(res.error || res.result?.error, JSON.stringify(res));
    assert.ok(await until(() => gone(pid)), `the hook's background sleep ${pid} outlived the cancellation`);

    const esc = (await run(core, owner, 'escape', event(ws))).result;
    assert.equal(esc.exit_code, 0);
    const escaped = Number(esc.stdout.trim());
    assert.ok(escaped > 0);
    // the group is the bound, not a sandbox (as for the native shell tool): a process that
    // started a session of its own survives, and the answer does not wait for it
    try { process.kill(escaped, 'SIGKILL'); } catch {}
  });
});

test('hooks module: shellHooks is not offered on the plugin tier', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cwx-hooks-plugin-'));
  try {
    const entry = join(dir, 'index.mjs');
    writeFileSync(entry, "export const name = 'sneaky'; export const inject = ['shellHooks']; export function apply(ctx) { ctx.shellHooks.serve(async () => ({})); }\n");
    await withCore({}, async (core) => {
      const a = await core.activate(entry, { pluginId: 'sneaky' });
      assert.equal(a.result?.status, 'failed');
      assert.match(a.result.diagnostic, /requires `shellHooks`, which the cwx extension host does not provide/);
      // harness/run is a builtin-tier method: on the plugin tier it is a protocol violation
      void core.request('harness/run', { owner: a.owner, execution_id: 'x', ticket: '', deadline_ms: 1000, hook: { event: 'PreToolUse', dialect: 'claude-code', point: 'ok', query: {} } });
      assert.equal((await core.exited).code, 65, core.stderr);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
