// host/hello names the other tier.
import { serve, tier } from './lib.mjs';
serve({ helloOverrides: { tier: tier === 'plugin' ? 'builtin' : 'plugin' } });
