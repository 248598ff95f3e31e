// host/hello reports a runtime version that was not probed.
import { serve, runtime } from './lib.mjs';
serve({ helloOverrides: { runtime: { ...runtime, version: '0.0.1' } } });
