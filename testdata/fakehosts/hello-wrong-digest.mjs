// host/hello reports a bundle digest that is not this file's.
import { serve } from './lib.mjs';
serve({ helloOverrides: { bundle_sha256: '0'.repeat(64) } });
