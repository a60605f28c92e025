'use strict';
/**
 * Starts a bcoin 1.0.2 full node (with its wallet) on regtest for the BTC end-to-end tests, in this
 * process. Arguments are bcoin's own (`--http-port=`, `--wallet-http-port=`, `--prefix=`,
 * `--api-key=`, ...). Two changes from stock bcoin, made before the node exists:
 *
 * - `NODE_BACKEND=js`: bcoin's native helpers (mrmr, bcrypto, ...) are not built (pnpm runs no
 *   install scripts for them); their pure-JS versions are used.
 * - regtest addresses are encoded as on Bitcoin's testnet (bech32 `tb`, base58 0x6f/0xc4, the
 *   versions Bitcoin Core's regtest shares), so the node's addresses are the gateway's testnet
 *   addresses and it stands in for the gateway's btc/signet network (docs/decisions.md).
 */
process.env.NODE_BACKEND = 'js';
const networks = require('bcoin/lib/protocol/networks');

networks.regtest.addressPrefix = {
  pubkeyhash: 0x6f,
  scripthash: 0xc4,
  witnesspubkeyhash: 0x03,
  witnessscripthash: 0x28,
  bech32: 'tb',
};

const bcoin = require('bcoin');

const node = new bcoin.FullNode({
  config: true,
  argv: true,
  env: false,
  logFile: false,
  logConsole: false,
  network: 'regtest',
  memory: true,
  workers: false,
  listen: false,
  indexTX: true,
  indexAddress: true,
});
node.use(bcoin.wallet.plugin);

async function main() {
  await node.ensure();
  await node.open();
  await node.connect();
  node.startSync();
  process.stdout.write('ready\n');
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  node.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

main().catch((error) => {
  process.stderr.write(`bcoin did not start: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
