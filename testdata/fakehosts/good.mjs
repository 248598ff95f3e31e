// A well-behaved host: handshake, ping, shutdown, tool/call echo.
import { serve } from './lib.mjs';
serve();
