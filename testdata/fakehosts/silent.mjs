// Never says anything; stays alive until stdin ends.
import { onMessage } from './lib.mjs';
onMessage(() => {});
