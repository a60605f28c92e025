/** What other packages' tests use of the watchers' test helpers (`@gw/plugin-watchers/testing`). */
export { BEFORE_BLOCK, EsploraReplay, HASH, HEIGHT, OTHER, pageWithOutputTo, TXID } from './esplora-replay.js';
export { watchedProject } from './scenario.js';
export { scanOnce } from './scan-once.js';
