// Licence notices for the bundle, generated from esbuild's metafile: every package that
// contributed an input file gets a section with its own licence text. A bundled package without
// a licence file fails the build.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** licenceNotices lists every package that contributed an input file, with its licence text. */
export function licenceNotices(pkgDir, metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (!m) continue;
    const root = input.slice(0, m.index + m[0].length - 1).replace(/^\//, '');
    packages.set(m[1], join(pkgDir, root));
  }
  const sections = [];
  for (const [name, dir] of [...packages].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const file = readdirSync(dir).sort().find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
    if (!file || !existsSync(join(dir, file))) {
      throw new Error(`bundled package ${name} has no licence file: refusing to build without its notice`);
    }
    const text = readFileSync(join(dir, file), 'utf8').trim();
    sections.push(`${name}@${meta.version} (${meta.license ?? 'see text'})\n${'-'.repeat(72)}\n${text}\n`);
  }
  return `Third-party software bundled in cwx-extension-host.mjs\n${'='.repeat(72)}\n\n${sections.join('\n')}`;
}
