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
 *
 * With `GW_BCOIN_ZMQ=tcp://127.0.0.1:PORT` in the environment, the node publishes Bitcoin Core's
 * ZMQ notifications there (bcoin has none of its own): `rawtx` for each transaction entering the
 * mempool and for each transaction of a connected block, then `hashblock` for each new tip (a
 * connected block, or the tip left by a disconnected one), each as Core sends it: topic, body
 * (the raw transaction with witness, or the block hash in display order) and a 4-byte
 * little-endian sequence number per topic. Driven by the node's own chain and mempool events, at
 * the moments Core publishes.
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

/** Core's ZMQ notifier, in bcoin's process: one PUB socket, sends queued in order. */
async function publishZmq(url) {
  const { Publisher } = require('zeromq');
  const socket = new Publisher({ linger: 0 });
  await socket.bind(url);
  const sequence = { hashblock: 0, rawtx: 0 };
  let queue = Promise.resolve();
  const publish = (topic, body) => {
    const number = Buffer.alloc(4);
    number.writeUInt32LE(sequence[topic] >>> 0);
    sequence[topic] += 1;
    queue = queue.then(() => socket.send([topic, body, number])).catch(() => undefined);
  };
  const tip = () => Buffer.from(node.chain.tip.rhash(), 'hex');
  node.mempool.on('tx', (tx) => publish('rawtx', tx.toRaw()));
  node.chain.on('connect', (entry, block) => {
    for (const tx of block.txs) publish('rawtx', tx.toRaw());
    publish('hashblock', Buffer.from(entry.rhash(), 'hex'));
  });
  node.chain.on('disconnect', () => publish('hashblock', tip()));
  return socket;
}

async function main() {
  await node.ensure();
  await node.open();
  if (process.env.GW_BCOIN_ZMQ) await publishZmq(process.env.GW_BCOIN_ZMQ);
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
