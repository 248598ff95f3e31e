// Entry point of the cwx JS extension host (bundled to dist/cwx-extension-host.mjs): start.ts,
// reporting the sha256 of this bundle's own file in host/hello.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { start } from './start.ts';

function selfDigest(): string {
  try {
    return createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex');
  } catch {
    return 'unknown';
  }
}

start(selfDigest());
