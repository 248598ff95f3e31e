// host/hello lists a builtin module the pinned table does not have.
import { serve } from './lib.mjs';
serve({ helloOverrides: { builtin_modules: [{ id: 'extra', sha256: 'ab'.repeat(32) }] } });
