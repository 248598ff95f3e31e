// execFile('git', …) in the plugin tier: the metadata queries become core/call
// `git_review_scope` with the invocation's ticket and settle as execFile does (callback and
// util.promisify forms, the options' encoding); another subcommand, git through the other
// child_process functions and a call outside a tool are refused by name without reaching the
// core; a program that is not git runs as before; on Node and Bun.
import assert from 'node:assert/strict';
import { plugin, test, withCore } from './harness.mjs';

const TICKET = 'tkt-git-1';
const text = (t, structured = {}) => ({ result: { content: [{ type: 'text', text: t }], is_error: false, structured } });
const REFUSED = /^`git push` \(execFile\) is not provided by cwx: only review-scope metadata queries are, through execFile\('git', args\) inside one of the plugin's tools/;

test('execFile git metadata queries reach the core as git_review_scope', async () => {
  const seen = [];
  await withCore({
    coreCall: (p) => {
      seen.push(p);
      const args = p.input.args;
      switch (args.find((a) => !a.startsWith('--no-'))) {
        case 'merge-base': return text('abc123\n', { query: { kind: 'merge-base' }, cut: false });
        case 'log': return text('abc123\tfirst\ndef456\tsecond\n');
        case 'diff': return text('M\ta.go\nR100\told.go\tnew.go\n'); // the core's --name-status
        case 'rev-parse': return args.includes('--abbrev-ref') ? text('feature\n') : { error: { code: -32002, message: 'core/call refused: `git_review_scope`: not a bounded git metadata query: only `rev-parse --abbrev-ref HEAD` is admitted' } };
      }
      return { error: { code: -32002, message: 'unexpected' } };
    },
  }, async (core) => {
    const a = await core.activate(plugin('git-scope', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    const r = (await core.callTool(core.handleOf('review_range'), { base: 'main' }, { ticket: TICKET })).result.structured;
    assert.deepEqual(r, {
      mergeBase: { ok: { buffer: true, stdout: 'abc123', stderr: 0 } },
      commits: { ok: 'abc123\tfirst\ndef456\tsecond\n', stderr: '' },
      files: { ok: 'a.go\nnew.go\n', stderr: '' }, // as --name-only prints them
      branch: { ok: 'feature' },
      same: true,
    });
    assert.deepEqual(seen.map((p) => [p.name, p.ticket, p.owner.plugin_id === a.owner.plugin_id, p.input]), [
      ['git_review_scope', TICKET, true, { args: ['--no-optional-locks', 'merge-base', 'main', 'HEAD'] }],
      ['git_review_scope', TICKET, true, { args: ['log', '--format=%H%x09%s', 'main..HEAD'] }],
      ['git_review_scope', TICKET, true, { args: ['diff', '--name-only', 'main...HEAD'] }],
      ['git_review_scope', TICKET, true, { args: ['rev-parse', '--abbrev-ref', 'HEAD'] }],
    ]);

    seen.length = 0;
    const f = (await core.callTool(core.handleOf('scope_refusals'), {}, { ticket: TICKET })).result.structured;
    assert.equal(f.push.error.code, 'ERR_CWX_GIT_REFUSED');
    assert.match(f.push.error.message, REFUSED);
    assert.equal(f.toplevel.error.code, 'ERR_CWX_GIT_REFUSED');
    assert.match(f.toplevel.error.message, /^`git rev-parse` \(execFile\) is not provided by cwx: .*only `rev-parse --abbrev-ref HEAD` is admitted$/);
    for (const how of ['execFileSync', 'spawn']) {
      assert.equal(f[how].error.code, 'ERR_CWX_GIT_REFUSED', how);
      assert.match(f[how].error.message, new RegExp(`^\`git status\` \\(${how}\\) is not provided by cwx`), how);
    }
    assert.match(f.exec.error.message, /^`git log` \(exec\) is not provided by cwx/);
    assert.deepEqual(f.echo, { ok: 'not git\n', stderr: '' });
    assert.deepEqual(seen.map((p) => p.input.args[0]), ['rev-parse'], 'only the query the core decides reached it');

    const ab = (await core.callTool(core.handleOf('scope_aborted'), {}, { ticket: TICKET })).result.structured;
    assert.equal(ab.error.code, 'ABORT_ERR', JSON.stringify(ab));

    seen.length = 0;
    const none = (await core.callTool(core.handleOf('review_range'), { base: 'main' }, {})).result.structured; // no ticket
    assert.equal(none.mergeBase.error.code, 'ERR_CWX_GIT_REFUSED');
    assert.match(none.mergeBase.error.message, /a plugin may use the agent's services only while one of its own tools runs/);
    assert.equal(seen.length, 0, 'nothing reached the core');
  });
});

test('a failed or cut query rejects as execFile does', async () => {
  await withCore({
    coreCall: (p) => (p.input.args.includes('merge-base')
      ? { error: { code: -32001, message: 'agent service `git_review_scope` failed: git merge-base: exit status 128: fatal: Not a valid object name main' } }
      : text('x'.repeat(10), { cut: true })),
  }, async (core) => {
    const a = await core.activate(plugin('git-scope', 'index.mjs'));
    assert.equal(a.result?.status, 'ok', JSON.stringify(a.res));
    const r = (await core.callTool(core.handleOf('review_range'), { base: 'main' }, { ticket: TICKET })).result.structured;
    assert.equal(r.mergeBase.error.code, 1);
    assert.match(r.mergeBase.error.message, /^Command failed: git --no-optional-locks merge-base main HEAD\n.*Not a valid object name main/);
    assert.equal(r.commits.error.code, 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER');
    assert.equal(r.commits.stdout, 'x'.repeat(10));
  });
});
