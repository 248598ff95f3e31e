// Never says anything; stays alive until the channel (fd 3) ends.
import { onMessage } from './lib.mjs';
onMessage(() => {});
