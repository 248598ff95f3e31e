// Handshakes, then answers tool/call with bytes that are not a frame.
import { serve, writeRaw } from './lib.mjs';
serve({ handlers: { 'tool/call': () => writeRaw(Buffer.from('this is not a CWX1 frame\n')) } });
