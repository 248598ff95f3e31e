// host/hello in the old dialect: node_version instead of runtime.
import { serve } from './lib.mjs';
serve({ helloOverrides: { runtime: undefined, node_version: process.version } });
