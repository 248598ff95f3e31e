// Echoes every CWX1 frame back verbatim without parsing it (for measuring the shim hop;
// it never handshakes, so it is used below the supervisor).
import { channelIn as input, channelOut as output } from './lib.mjs';

let chunks = [];
let have = 0;
input.on('data', (d) => {
  chunks.push(d);
  have += d.length;
  while (have >= 8) {
    const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
    chunks = [all];
    const need = 8 + all.readUInt32LE(4);
    if (have < need) return;
    output.write(all.subarray(0, need));
    const rest = all.subarray(need);
    chunks = rest.length ? [rest] : [];
    have = rest.length;
  }
});
input.on('end', () => process.exit(0));
