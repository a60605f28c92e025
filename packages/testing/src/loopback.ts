// The loopback helpers live with the chain contract's test helpers (chain packages' tests use them too).
export { closeServer, listenOnLoopback } from '@gw/kernel/testing';
