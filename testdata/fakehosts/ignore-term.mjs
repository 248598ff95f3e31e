// Ignores SIGTERM, host/shutdown and EOF on the channel (fd 3).
import { serve } from './lib.mjs';
process.on('SIGTERM', () => process.stderr.write('fake host: ignoring SIGTERM\n'));
serve({ handlers: { 'host/shutdown': () => {} }, exitOnEOF: false });
setInterval(() => {}, 1000);
