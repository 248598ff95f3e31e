// Fixture: like a plugin that reads a payload folder its user configures, it reads a file
// and lets a failure (ENOENT outside its sandbox's mounts) be thrown as it is.
import fs from 'node:fs';
export const name = 'fixture-grant-reader';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'grant_read',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute(args) { return fs.readFileSync(args.path, 'utf8'); },
  });
  ctx.tools.register({
    name: 'grant_write',
    description: 'Write a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute(args) { fs.writeFileSync(args.path, 'x'); return 'written'; },
  });
}
