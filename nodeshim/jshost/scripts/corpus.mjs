// Prints the JS validator's verdict for each protocol corpus file, one line per file and tier:
//   <file> <tier> valid|invalid [reason]
// so that a Go test can compare it with the Go parser's verdicts. Exit status 0 even when a
// verdict disagrees with the file's "valid" field; `--check` exits 1 on any disagreement.
//
//   npm run corpus -- [--check] [--json] <files...>
// Runs the TypeScript sources directly (Node ≥ 22.18 strips types; Bun runs TS natively).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { attachmentReason, splitAttachment, validateMessage } from '../src/validate.ts';
import { StrictJsonError, parseStrict } from '../src/strictjson.ts';

const args = process.argv.slice(2);
const check = args.includes('--check');
const asJson = args.includes('--json');
const files = args.filter((a) => !a.startsWith('--'));
if (files.length === 0) {
  process.stderr.write('usage: npm run corpus -- [--check] [--json] <corpus files...>\n');
  process.exit(2);
}

/** verdict checks one corpus case on one tier, the way the receiving side would. */
export function verdict(c, payload, tier) {
  const split = splitAttachment(payload);
  if (typeof split === 'string') return { valid: false, reason: split };
  let msg;
  try {
    msg = parseStrict(split.text);
  } catch (err) {
    if (err instanceof StrictJsonError) return { valid: false, reason: err.message };
    throw err;
  }
  const answers = () => c.answers;
  const reason = validateMessage(msg, c.direction, tier, answers) ?? (split.attachment === undefined ? null : attachmentReason(msg, c.direction, answers));
  return reason === null ? { valid: true } : { valid: false, reason };
}

let disagreements = 0;
const out = [];
for (const file of files) {
  const raw = readFileSync(file);
  const c = JSON.parse(raw.toString('utf8'));
  // "raw_base64" (when present) is the exact payload, for cases JSON cannot hold as a value.
  const payload = typeof c.raw_base64 === 'string' ? Buffer.from(c.raw_base64, 'base64') : Buffer.from(JSON.stringify(c.frame), 'utf8');
  for (const tier of c.tier ? [c.tier] : ['plugin', 'builtin']) {
    const v = verdict(c, payload, tier);
    if (v.valid !== c.valid) disagreements++;
    const reasonOk = v.valid || !c.error || (v.reason ?? '').includes(c.error);
    out.push({ file: basename(file), tier, valid: v.valid, reason: v.reason ?? '', expected: c.valid, expectedError: c.error ?? '', reasonOk });
  }
}
if (asJson) {
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
} else {
  for (const o of out) {
    const mark = o.valid === o.expected ? '' : `  (corpus says ${o.expected ? 'valid' : 'invalid'})`;
    process.stdout.write(`${o.file} ${o.tier} ${o.valid ? 'valid' : 'invalid'}${o.reason ? ` ${o.reason}` : ''}${mark}\n`);
  }
}
if (check && disagreements > 0) {
  process.stderr.write(`${disagreements} verdict(s) disagree with the corpus\n`);
  process.exit(1);
}
