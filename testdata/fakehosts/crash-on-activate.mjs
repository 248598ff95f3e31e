// Activates owners, but dies while activating the plugin named crashy.
import { serve, respond } from './lib.mjs';
serve({ handlers: { 'ext/activate': (m) => {
  if (m.params.owner.plugin_id === 'crashy') { process.stderr.write('fake host: crashy took the host down\n'); process.exit(1); }
  respond(m.id, { status: 'ok', tools: [], commands: [] });
} } });
