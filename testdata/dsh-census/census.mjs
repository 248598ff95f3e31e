// The DSH census: every package of a DSH monorepo checkout whose main entry declares `inject`,
// classified headless or not, and each headless one built from source into a fixture here.
//
//   node testdata/dsh-census/census.mjs --src <owner/name>=<path> [--src ...]
//
// It reads the copies of the monorepo sources.json lists (a git directory at the pinned commit,
// read with `git show` / `git archive` only, so a bare mirror is enough; or a folder of single
// files), takes each package from the first copy that has it, writes
// testdata/dsh-census/census.json (the list, each package with its repository, commit and licence) and
// one folder per headless package, testdata/dsh-census/<dir>/, holding package.json, lib/index.js
// and LICENSE. The build is the package's own: its TypeScript entry type-stripped and bundled
// into lib/index.js with every bare import left external (the monorepo's tsdown step does the
// same to tsc's output), here with esbuild from nodeshim/jshost's devDependencies.
// README.md's table is not written here: the Go census test renders it from census.json and
// the outcomes of running each fixture (core/cli/dsh_census_e2e_test.go).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const { build } = createRequire(join(repoRoot, 'nodeshim', 'jshost', 'package.json'))('esbuild');

/**
 * SERVICES is the services table the census judges against: every service name the cwx
 * compatibility position covers, provided or refused (nodeshim/jshost/src/root.ts). A package
 * that injects only these is headless; a name outside it is a DSH-internal service (provided by
 * another DSH package, so the plugin needs DSH's own composition) or a UI one.
 */
const SERVICES = new Set([
  // what cwx provides to plugins
  'tools', 'commands', 'timer', 'prompt', 'systemPrompt', 'storage', 'userQuestions', 'logger', 'events', 'reflect', 'registry',
  // what cwx refuses by name: the core owns the authority
  'approval', 'agents', 'sessions', 'subagents', 'llm', 'sandboxPolicy', 'credentials', 'fs', 'subprocess', 'skills', 'shellHooks',
  'loader', 'runtimeLoop', 'mcp', 'avatars',
]);

/** UI_SERVICES are the services of DSH's web and terminal faces: a package injecting one is not headless. */
const UI_SERVICES = new Set([
  'webServer', 'connection', 'remote', 'remote.commands', 'slots', 'clientModules', 'modules', 'settingsScope', 'typert',
  'apiProxy', 'directoryPicker', 'tui', 'client', 'cmdlineArgs',
]);

function args() {
  const paths = new Map();
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) {
    const m = a[i] === '--src' ? /^([^=]+)=(.+)$/.exec(a[i + 1] ?? '') : null;
    if (!m) usage();
    paths.set(m[1], resolve(m[2]));
  }
  if (paths.size === 0) usage();
  return paths;
}

function usage() {
  console.error('usage: node testdata/dsh-census/census.mjs --src <owner/name>=<path> [--src ...]   (one per copy in sources.json)');
  process.exit(2);
}

/**
 * openSource reads one copy of the monorepo: a git directory at its pinned commit (git show and
 * git archive, so a bare mirror is enough), or a tree of the single files sources.json lists.
 */
function openSource(src, path) {
  if (src.kind === 'git') {
    const commit = execFileSync('git', ['--git-dir', path, 'rev-parse', `${src.commit}^{commit}`], { encoding: 'utf8' }).trim();
    const show = (file) => {
      try {
        return execFileSync('git', ['--git-dir', path, 'show', `${commit}:${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 26 });
      } catch {
        return undefined;
      }
    };
    const files = execFileSync('git', ['--git-dir', path, 'ls-tree', '-r', '--name-only', commit], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n');
    const extract = (dest) => execFileSync('sh', ['-c', 'git --git-dir "$0" archive "$1" packages vendor | tar -x -C "$2"', path, commit, dest]);
    return { ...src, commit, show, files, extract };
  }
  const files = Object.keys(src.files);
  const show = (file) => (files.includes(file) && existsSync(join(path, file)) ? readFileSync(join(path, file), 'utf8') : undefined);
  const extract = (dest) => {
    for (const f of files) {
      mkdirSync(dirname(join(dest, f)), { recursive: true });
      writeFileSync(join(dest, f), readFileSync(join(path, f)));
    }
  };
  return { ...src, commit: src.files[files.find((f) => f.endsWith('.ts')) ?? files[0]], show, files, extract };
}

const paths = args();
const declared = JSON.parse(readFileSync(join(here, 'sources.json'), 'utf8')).sources;
const sources = declared.map((src) => {
  const path = paths.get(src.repository);
  if (path === undefined) throw new Error(`no --src for ${src.repository} (sources.json lists it)`);
  return openSource(src, path);
});
const primary = sources[0];

/** mainEntry is the source file of a package's "." export: lib/index.js is built from src/index.ts. */
function mainEntry(show, dir, pkg) {
  const dot = pkg.exports?.['.'];
  const lib = typeof dot === 'string' ? dot : dot?.default ?? dot?.import ?? pkg.main;
  if (typeof lib !== 'string') return undefined;
  const src = lib.replace(/^\.\//, '').replace(/^lib\//, 'src/').replace(/\.js$/, '.ts');
  return show(`${dir}/${src}`) === undefined ? undefined : src;
}

/**
 * injectOf reads the entry's top-level inject declaration: `export const inject = [...]`, an
 * object form `{ name: ... }`, or `static inject = [...]` on the exported class. It returns the
 * names, or undefined when the entry declares none.
 */
export function injectOf(text) {
  const m = /^(?:export const inject(?:\s*:[^=\n]+)?|\s+static (?:override )?inject)\s*=\s*([[{])/m.exec(text);
  if (!m) return undefined;
  const open = m[1];
  const close = open === '[' ? ']' : '}';
  let depth = 0;
  let i = m.index + m[0].length - 1;
  const start = i;
  for (; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close && --depth === 0) break;
  }
  const body = text.slice(start + 1, i).replace(/\/\/[^\n]*/g, '');
  if (open === '[') return [...body.matchAll(/['"]([^'"]+)['"]/g)].map((x) => x[1]);
  // object form: the keys at depth one
  const names = [];
  let d = 0;
  for (const tok of body.matchAll(/([{}])|(?:^|[,{\s])['"]?([A-Za-z_$][\w$.]*)['"]?\s*:/g)) {
    if (tok[1] === '{') d++;
    else if (tok[1] === '}') d--;
    else if (d === 0 && tok[2]) names.push(tok[2]);
  }
  return names;
}

/** classify says whether injects make a package headless, and if not, why. */
function classify(inject) {
  const ui = inject.filter((n) => UI_SERVICES.has(n));
  if (ui.length > 0) return { headless: false, why: `UI service ${ui.map((n) => `\`${n}\``).join(', ')}` };
  const internal = inject.filter((n) => !SERVICES.has(n));
  if (internal.length > 0) return { headless: false, why: `DSH-internal service ${internal.map((n) => `\`${n}\``).join(', ')}` };
  return { headless: true, why: '' };
}

/** workspaceVersions maps each workspace package name to its version, for peer ranges. */
function workspaceVersions(pkgs) {
  return new Map(pkgs.map((p) => [p.pkg.name, p.pkg.version]));
}

function peerRanges(peers, versions) {
  const out = {};
  for (const [name, range] of Object.entries(peers ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    out[name] = String(range).startsWith('workspace:') ? `^${versions.get(name) ?? '0.0.0'}` : range;
  }
  return out;
}

const pkgs = [];
const seen = new Set();
for (const source of sources) {
  const packageFiles = source.files
    .filter((p) => /^(packages|vendor|apps)\/.*\/package\.json$/.test(p) && !p.includes('node_modules') && !/\/(test|tests|fixtures?)\//.test(p))
    .sort();
  for (const file of packageFiles) {
    const text = source.show(file);
    if (text === undefined) continue;
    let pkg;
    try {
      pkg = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof pkg.name !== 'string' || seen.has(pkg.name)) continue;
    seen.add(pkg.name);
    pkgs.push({ dir: dirname(file), pkg, source });
  }
}
const versions = workspaceVersions(pkgs);
const licence = primary.show('LICENSE') ?? '';
const licenceName = /^MIT License/.test(licence) ? 'MIT' : 'unknown';
if (licenceName !== 'MIT') throw new Error('the monorepo LICENSE is not the MIT licence: check whether its packages may be redistributed before keeping fixtures');

const trees = new Map();
for (const source of sources) {
  const tree = mkdtempSync(join(tmpdir(), 'dsh-census-'));
  source.extract(tree);
  trees.set(source, tree);
}

const census = [];
for (const { dir, pkg, source } of pkgs) {
  const entry = mainEntry(source.show, dir, pkg);
  if (entry === undefined) continue;
  const inject = injectOf(source.show(`${dir}/${entry}`) ?? '');
  if (inject === undefined) continue;
  if (pkg.license !== undefined && pkg.license !== 'MIT') throw new Error(`${pkg.name} declares licence ${pkg.license}: check it before keeping a fixture`);
  const c = classify(inject);
  const row = { dir, name: pkg.name, version: pkg.version, license: pkg.license ?? licenceName, source: source.repository, commit: source.commit, inject, headless: c.headless };
  if (!c.headless) row.why = c.why;
  else row.fixture = basename(dir);
  census.push(row);
}

// fixtures: one folder per headless package, rebuilt from scratch
for (const d of readdirSync(here, { withFileTypes: true })) {
  if (d.isDirectory()) rmSync(join(here, d.name), { recursive: true });
}
const fixtureNames = new Set();
for (const row of census.filter((r) => r.headless)) {
  if (fixtureNames.has(row.fixture)) throw new Error(`two headless packages share the folder name ${row.fixture}`);
  fixtureNames.add(row.fixture);
  const { pkg, source } = pkgs.find((p) => p.pkg.name === row.name);
  const out = join(here, row.fixture);
  mkdirSync(join(out, 'lib'), { recursive: true });
  const r = await build({
    absWorkingDir: join(trees.get(source), row.dir), entryPoints: [mainEntry(source.show, row.dir, pkg)], bundle: true, packages: 'external',
    format: 'esm', platform: 'node', target: ['es2024'], write: false, legalComments: 'none', charset: 'utf8', logLevel: 'error',
    outfile: join(out, 'lib', 'index.js'),
    banner: { js: `// ${pkg.name}@${pkg.version}, built by testdata/dsh-census/census.mjs from ${source.repository}@${source.commit.slice(0, 12)}:${row.dir} (MIT, see LICENSE).` },
  });
  writeFileSync(join(out, 'lib', 'index.js'), r.outputFiles[0].contents);
  const manifest = {
    name: pkg.name, version: pkg.version, description: pkg.description ?? '', type: 'module', main: 'lib/index.js', license: pkg.license ?? 'MIT',
  };
  if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) manifest.dependencies = peerRanges(pkg.dependencies, versions);
  if (pkg.peerDependencies) manifest.peerDependencies = peerRanges(pkg.peerDependencies, versions);
  writeFileSync(join(out, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(join(out, 'LICENSE'), licence);
}
for (const tree of trees.values()) rmSync(tree, { recursive: true });

const doc = {
  note: 'Generated by testdata/dsh-census/census.mjs (make dsh-census); do not edit.',
  sources: sources.map(({ repository, kind, commit, why }) => ({ repository, kind, commit, why })),
  licence: licenceName,
  headless_rule: 'the main entry injects only services of the cwx services table (provided or refused by name); UI and DSH-internal services make a package not headless',
  packages: census,
};
writeFileSync(join(here, 'census.json'), JSON.stringify(doc, null, 2) + '\n');
const n = census.filter((r) => r.headless).length;
console.log(`dsh-census: ${census.length} packages declare inject in ${sources.length} copies, ${n} headless`);
if (!existsSync(join(here, 'README.md'))) console.log('dsh-census: now run the census test to write README.md');
