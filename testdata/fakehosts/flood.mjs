// After ready, sends 257 core/call requests at once.
import { serve, send } from './lib.mjs';
const req = (id) => ({ jsonrpc: '2.0', id, method: 'core/call', params: { owner: { plugin_id: 'p', generation: 1, owner_token: 't' }, ticket: 'x', name: 'read_file', input: {} } });
serve({ afterReady: () => { for (let i = 1; i <= 257; i++) send(req(i)); } });
