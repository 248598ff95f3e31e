// Writes a frame whose magic is not CWX1.
import { writeRaw } from './lib.mjs';
process.stderr.write('fake host: writing bad magic\n');
writeRaw(Buffer.from('GARBAGE!not a frame'));
setInterval(() => {}, 1000);
