// Fixture: `review_range` reads a review scope the way DSH review plugins do: the merge base
// with util.promisify(execFile) and `encoding: 'buffer'`, the commits and the changed files
// with execFile's callback, the current branch with the `node:child_process` default export;
// `same` says require and process.getBuiltinModule give the same execFile as the import.
// `scope_refusals` tries git calls cwx does not provide (another subcommand, a query the core
// refuses, execFileSync, spawn, exec) and a program that is not git; `scope_aborted` aborts a
// query through its signal. Each failure is reported as {code, message}.
import childProcess, { execFile, execFileSync, spawn, exec } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

export const name = 'fixture-git-scope';
export const inject = ['tools'];

const run = promisify(execFile);
const failure = (err) => ({ code: err?.code ?? err?.name ?? 'unknown', message: String(err?.message ?? err) });
const settle = async (f) => {
  try {
    return { ok: await f() };
  } catch (err) {
    return { error: failure(err) };
  }
};
const callback = (file, args) => new Promise((resolve) => {
  const child = execFile(file, args, (err, stdout, stderr) => resolve(err ? { error: failure(err), stdout, stderr } : { ok: stdout, stderr }));
  if (typeof child?.on !== 'function') resolve({ error: { code: 'no child', message: typeof child } });
});
const sync = (f) => {
  try {
    return { ok: String(f()) };
  } catch (err) {
    return { error: failure(err) };
  }
};

export function apply(ctx) {
  ctx.tools.register({
    name: 'review_range',
    description: 'Reads the merge base, the commits and the changed files of base..HEAD.',
    parameters: { type: 'object', properties: { base: { type: 'string' } }, required: ['base'] },
    async execute({ base }) {
      const mergeBase = await settle(async () => {
        const { stdout, stderr } = await run('git', ['--no-optional-locks', 'merge-base', base, 'HEAD'], { encoding: 'buffer', maxBuffer: 1 << 20 });
        return { buffer: Buffer.isBuffer(stdout), stdout: stdout.toString('utf8').trim(), stderr: stderr.length };
      });
      const commits = await callback('git', ['log', '--format=%H%x09%s', `${base}..HEAD`]);
      const files = await callback('git', ['diff', '--name-only', `${base}...HEAD`]);
      const branch = await settle(async () => (await promisify(childProcess.execFile)('git', ['rev-parse', '--abbrev-ref', 'HEAD'])).stdout.trim());
      // every way to reach child_process gives the same execFile
      const same = createRequire(import.meta.url)('node:child_process').execFile === execFile && process.getBuiltinModule('child_process').execFile === execFile;
      return { mergeBase, commits, files, branch, same };
    },
  });
  ctx.tools.register({
    name: 'scope_refusals',
    description: 'Tries git calls cwx does not provide, and a program that is not git.',
    parameters: { type: 'object' },
    async execute() {
      return {
        push: await callback('git', ['push', 'origin', 'HEAD']),
        toplevel: await settle(() => run('git', ['rev-parse', '--show-toplevel'])),
        execFileSync: sync(() => execFileSync('git', ['status'])),
        spawn: sync(() => spawn('git', ['status'])),
        exec: sync(() => exec('git log', () => undefined)),
        echo: await callback('/bin/echo', ['not git']),
      };
    },
  });
  ctx.tools.register({
    name: 'scope_aborted',
    description: 'Aborts a git query through its signal.',
    parameters: { type: 'object' },
    async execute() {
      const ac = new AbortController();
      const p = settle(() => run('git', ['merge-base', 'main', 'HEAD'], { signal: ac.signal }));
      ac.abort();
      return p;
    },
  });
}
