// Answers host/ping with something other than {}.
import { serve, respond } from './lib.mjs';
serve({ handlers: { 'host/ping': (m) => respond(m.id, { pong: true }) } });
