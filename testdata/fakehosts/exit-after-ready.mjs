// Fake host: a complete handshake, then it exits with status 1 at the core's first host/ping,
// which the core sends only once it took the incarnation as ready (so the end is always a
// crash after ready, whatever the load).
import { serve } from './lib.mjs';
serve({ handlers: { 'host/ping': () => { process.stderr.write('fake host: crashing after ready\n'); process.exit(1); } } });
