// Handshakes, then allocates until the data limit stops it (uncaught: the runtime exits).
import { serve } from './lib.mjs';
const hog = [];
serve({ afterReady: () => setTimeout(() => { for (;;) hog.push(Buffer.alloc(16 << 20, 1)); }, 10) });
