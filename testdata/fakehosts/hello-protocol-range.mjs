// host/hello speaks protocols 2..3 only.
import { serve } from './lib.mjs';
serve({ helloOverrides: { protocol: { min: 2, max: 3 } } });
