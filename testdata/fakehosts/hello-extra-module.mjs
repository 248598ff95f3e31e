// host/hello lists, besides the real table, a builtin module the pinned table does not have.
import { builtinModules, serve } from './lib.mjs';
serve({ helloOverrides: { builtin_modules: [...builtinModules, { id: 'extra', sha256: 'ab'.repeat(32) }] } });
