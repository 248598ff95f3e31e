// host/hello carries a field the protocol does not define.
import { serve } from './lib.mjs';
serve({ helloOverrides: { surprise: true } });
