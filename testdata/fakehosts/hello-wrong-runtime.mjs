// host/hello names the other runtime.
import { serve, runtime } from './lib.mjs';
serve({ helloOverrides: { runtime: { ...runtime, name: runtime.name === 'node' ? 'bun' : 'node' } } });
