// Announces a payload one byte over 32 MiB.
import { writeRaw } from './lib.mjs';
const h = Buffer.alloc(8); h.write('CWX1', 0, 'ascii'); h.writeUInt32LE(32 * 1024 * 1024 + 1, 4);
writeRaw(h);
setInterval(() => {}, 1000);
