// host/hello without builtin_modules.
import { serve } from './lib.mjs';
serve({ helloOverrides: { builtin_modules: undefined } });
