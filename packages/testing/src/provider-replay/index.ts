// The replay server itself lives with the chain contract's test helpers (chain packages' tests serve their recordings through it too).
export {
  jsonAnswer,
  startReplayServer,
  textAnswer,
  tooManyRequestsAnswer,
  type ReplayAnswer,
  type ReplayHandler,
  type ReplayRequest,
  type ReplayServer,
} from '@gw/kernel/testing';
export * from './recorded-scan.js';
export * from './esplora-replay.js';
export * from './evm-rpc-replay.js';
export * from './tron-replay.js';
export * from './toncenter-replay.js';
export * from './koios-replay.js';
export * from './public-provider-replay.js';
export * from './replayed-provider.js';
