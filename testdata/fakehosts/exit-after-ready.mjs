// Handshakes, then exits with code 1 shortly after.
import { serve } from './lib.mjs';
serve({ afterReady: () => setTimeout(() => { process.stderr.write('fake host: crashing after ready\n'); process.exit(1); }, 20) });
