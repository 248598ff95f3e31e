// Sends host/hello, then exits when initialized instead of answering.
import { onMessage, notify, hello } from './lib.mjs';
onMessage((m) => { if (m.method === 'host/initialize') { process.stderr.write('fake host: leaving mid-handshake\n'); process.exit(3); } });
notify('host/hello', hello());
