'use strict';
/**
 * Starts a bcoin 1.0.2 full node (with its wallet) on regtest for the BTC end-to-end tests, in this
 * process. Arguments are bcoin's own (`--http-port=`, `--wallet-http-port=`, `--prefix=`,
 * `--api-key=`, ...); a port of 0 lets the system choose it. When the node answers, one line goes
 * to stdout: `ready {"http":PORT,"wallet":PORT,"zmq":URL|null}` with the ports actually bound, so
 * no port is chosen by the parent and taken by another process before the node binds it. Two
 * changes from stock bcoin, made before the node exists:
 *
 * - `NODE_BACKEND=js`: bcoin's native helpers (mrmr, bcrypto, ...) are not built (pnpm runs no
 *   install scripts for them); their pure-JS versions are used.
 * - regtest addresses are encoded as Bitcoin Core's regtest encodes them (bech32 `bcrt`, base58
 *   0x6f/0xc4; stock bcoin says `rb`), so the node's addresses are those of the gateway's
 *   btc/regtest network (config `chains.testNetworks` `{"btc": "regtest"}`, docs/decisions.md).
 *
 * With `GW_BCOIN_ZMQ=tcp://127.0.0.1:PORT` (or `:*` for a port the system chooses) in the environment, the node publishes Bitcoin Core's
 * ZMQ notifications there (bcoin has none of its own): `rawtx` for each transaction entering the
 * mempool and for each transaction of a connected or disconnected block, then `hashblock` for
 * each connected block, each as Core sends it: topic, body (the raw transaction with witness, or
 * the block hash in display order) and a 4-byte little-endian sequence number per topic. Like
 * Core, no `hashblock` when blocks are only disconnected (`invalidateblock`): the next connected
 * block announces the new tip. Driven by the node's own chain and mempool events. Core also
 * publishes `rawtx` for a disconnected block's transactions it puts back into its mempool; bcoin
 * puts them back only when a wallet rebroadcasts them, and then its mempool event publishes them.
 */
process.env.NODE_BACKEND = 'js';
const networks = require('bcoin/lib/protocol/networks');

networks.regtest.addressPrefix = {
  pubkeyhash: 0x6f,
  scripthash: 0xc4,
  witnesspubkeyhash: 0x03,
  witnessscripthash: 0x28,
  bech32: 'bcrt',
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
  node.mempool.on('tx', (tx) => publish('rawtx', tx.toRaw()));
  node.chain.on('connect', (entry, block) => {
    for (const tx of block.txs) publish('rawtx', tx.toRaw());
    publish('hashblock', Buffer.from(entry.rhash(), 'hex'));
  });
  // Core's BlockDisconnected publishes each transaction of the block, and UpdatedBlockTip returns
  // before publishing when blocks were only disconnected (no new tip connected): no hashblock.
  node.chain.on('disconnect', (entry, block) => {
    for (const tx of block.txs) publish('rawtx', tx.toRaw());
  });
  // bcoin's invalidateblock resets the chain below the block (one 'reset' event, no 'disconnect'
  // per block), where Core disconnects block after block from the tip: the blocks above are read
  // before the reset and their transactions published after it, tip first.
  const reset = node.chain.db.reset.bind(node.chain.db);
  node.chain.db.reset = async (block) => {
    const target = await node.chain.getEntry(block);
    const gone = [];
    for (let entry = node.chain.tip; target && entry && entry.height > target.height; entry = await node.chain.getPrevious(entry)) {
      gone.push(await node.chain.getBlock(entry.hash));
    }
    const tip = await reset(block);
    for (const disconnected of gone) if (disconnected) for (const tx of disconnected.txs) publish('rawtx', tx.toRaw());
    return tip;
  };
  return socket.lastEndpoint;
}

async function main() {
  await node.ensure();
  await node.open();
  const zmq = process.env.GW_BCOIN_ZMQ ? await publishZmq(process.env.GW_BCOIN_ZMQ) : null;
  await node.connect();
  node.startSync();
  const bound = { http: node.http.address().port, wallet: node.plugins.walletdb.http.address().port, zmq };
  process.stdout.write(`ready ${JSON.stringify(bound)}\n`);
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
