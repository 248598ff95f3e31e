// After ready, sends two core/call requests with the same id.
import { serve, send } from './lib.mjs';
const req = (id) => ({ jsonrpc: '2.0', id, method: 'core/call', params: { owner: { plugin_id: 'p', generation: 1, owner_token: 't' }, ticket: 'x', name: 'read_file', input: {} } });
serve({ afterReady: () => { send(req(7)); send(req(7)); } });
