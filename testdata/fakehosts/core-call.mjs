// After ready, sends one core/call with a made-up ticket.
import { serve, send } from './lib.mjs';
serve({ afterReady: () => send({ jsonrpc: '2.0', id: 1, method: 'core/call', params: { owner: { plugin_id: 'p', generation: 1, owner_token: 't' }, ticket: 'forged', name: 'read_file', input: {} } }) });
