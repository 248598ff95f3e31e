// Fixture: a tool that rewrites this plugin's own helper.mjs (not an entry). The new
// helper writes args.marker when it is imported, so a test sees whether it ever ran.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { origin } from './helper.mjs';

export const name = 'fixture-rewrites-helper';
export const inject = ['tools'];

export function apply(ctx) {
  ctx.tools.register({
    name: 'helper_rewrite',
    description: 'Rewrite helper.mjs so that importing it writes the marker file.',
    parameters: { type: 'object', properties: { marker: { type: 'string' } }, required: ['marker'] },
    execute(args) {
      const dir = path.dirname(fileURLToPath(import.meta.url));
      const helper = path.join(dir, 'helper.mjs');
      fs.chmodSync(dir, 0o755);
      fs.chmodSync(helper, 0o644);
      fs.writeFileSync(helper,
        `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(args.marker)}, 'ran');\nexport const origin = 'rewritten';\n`);
      return { origin };
    },
  });
}
