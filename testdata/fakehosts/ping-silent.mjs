// Never answers host/ping.
import { serve } from './lib.mjs';
serve({ handlers: { 'host/ping': () => {} } });
