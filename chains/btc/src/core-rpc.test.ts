/**
 * The BTC watcher's `bitcoin-core` provider kind against a local HTTP server answering JSON-RPC
 * batches with HANDWRITTEN responses in the two shapes real nodes give: Bitcoin Core 22+ (`getblock
 * hash 2`, `scriptPubKey.address`) and the older form of Core 21 and bcoin (`getblock hash true
 * true`, `scriptPubKey.addresses[]`; the real bcoin node runs in plugins/watchers/test/btc-bcoin.test.ts).
 * Addresses and scripts are computed with bitcoinjs, not copied.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import * as bitcoin from 'bitcoinjs-lib';
import { watchedSet } from '@gw/chain-api/testing';
import { ProviderError, ProviderPool, type ChainAdapterDeps, type ProviderEndpoint, type ProviderOutcome } from '@gw/chain-api';
import { parseBatch, parseCoreBlock, satoshisOf } from './core-rpc.js';
import { btcChain } from './index.js';

const adapter = btcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, btcChain.definition);
const SIGNET = btcChain.definition.networks.testnets[0]!;

const p2wpkh = (byte: number) => bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, byte), network: bitcoin.networks.testnet });
const p2pkh = (byte: number) => bitcoin.payments.p2pkh({ hash: Buffer.alloc(20, byte), network: bitcoin.networks.testnet });
const PAID = p2wpkh(1);
const OTHER = p2pkh(2);
const MAINNET_OF_PAID = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 1), network: bitcoin.networks.bitcoin }).address!;
const hex = (s: Buffer | Uint8Array | undefined) => Buffer.from(s!).toString('hex');
const h = (c: string) => c.repeat(64);

type Form = 'current' | 'older';
/** One output as the node writes it; `form` picks `address` or `addresses[]`. */
function out(form: Form, n: number, value: number, payment: bitcoin.payments.Payment, address = payment.address!) {
  return { value, n, scriptPubKey: { hex: hex(payment.output), type: 'witness_v0_keyhash', ...(form === 'current' ? { address } : { addresses: [address] }) } };
}
function block(form: Form, hash: string, height: number, mainnetAddress = false) {
  return {
    hash,
    height,
    previousblockhash: h('0'),
    time: 1_700_000_000,
    tx: [
      { txid: h('c'), vin: [{ coinbase: '03abcd' }], vout: [out(form, 0, 50, PAID)] },
      {
        txid: h('d'),
        vin: [
          { txid: h('e'), vout: 0 },
          { txid: h('f'), vout: 3 },
        ],
        vout: [
          out(form, 0, 0.1, OTHER),
          out(form, 1, 0.12345678, PAID, mainnetAddress ? MAINNET_OF_PAID : PAID.address!),
          { value: 0, n: 2, scriptPubKey: { hex: '6a0474657374', type: 'nulldata' } },
          // A bare 1-of-2 multisig: several addresses, no single receiver.
          {
            value: 0.00001,
            n: 3,
            scriptPubKey: { hex: '51' + '21' + '02'.repeat(33) + '21' + '03'.repeat(33) + '52ae', addresses: [OTHER.address, PAID.address] },
          },
        ],
      },
    ],
  };
}

interface Node {
  readonly url: string;
  readonly calls: { method: string; params: unknown[] }[];
  readonly auth: (string | undefined)[];
  close(): Promise<void>;
}

/** A JSON-RPC node answering batches; `form` decides the output shape and the getblock dialect. */
async function startNode(form: Form, options: { mainnetAddress?: boolean; tip?: number } = {}): Promise<Node> {
  const calls: Node['calls'] = [];
  const auth: Node['auth'] = [];
  const tip = options.tip ?? 101;
  const answer = (method: string, params: unknown[]): { result?: unknown; error?: { code: number; message: string } } => {
    switch (method) {
      case 'getblockcount':
        return { result: tip };
      case 'getblockhash':
        return (params[0] as number) > tip ? { error: { code: -8, message: 'Block height out of range' } } : { result: h('a') };
      case 'getblock':
        if (form === 'older' && typeof params[1] !== 'boolean') return { error: { code: -3, message: 'Param #1 must be a boolean.' } };
        if (form === 'current' && params[1] !== 2) return { result: { hash: params[0], height: tip, tx: [h('c')] } };
        return { result: block(form, params[0] as string, tip, options.mainnetAddress) };
      case 'getrawmempool':
        return { result: [h('d'), h('f')] };
      case 'getrawtransaction': {
        if (params[0] === h('f')) return { error: { code: -5, message: 'No such mempool or blockchain transaction' } };
        const [, tx] = block(form, h('a'), tip).tx;
        return { result: { ...tx, hex: '00' } };
      }
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      auth.push(req.headers.authorization);
      const batch = JSON.parse(body) as { id: number; method: string; params: unknown[] }[];
      const replies = batch.map(({ id, method, params }) => {
        calls.push({ method, params });
        const { result, error } = answer(method, params);
        return { result: result ?? null, error: error ?? null, id };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(replies.reverse()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    auth,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function watcherOn(endpoints: ProviderEndpoint[], outcomes: ProviderOutcome[] = []) {
  const pool = new ProviderPool({ chain: 'btc', network: SIGNET.id, endpoints, timeoutMs: 2000, onOutcome: (o) => outcomes.push(o) });
  return adapter.createWatcher({ network: SIGNET, providers: pool });
}

test('BTC amounts in JSON numbers become exact satoshis', (t) => {
  t.is(satoshisOf(50, 'x'), 5_000_000_000);
  t.is(satoshisOf(0.12345678, 'x'), 12_345_678);
  t.is(satoshisOf(1e-8, 'x'), 1);
  t.is(satoshisOf(0.29, 'x'), 29_000_000);
  t.is(satoshisOf(20_999_999.99999999, 'x'), 2_099_999_999_999_999);
  t.is(satoshisOf(0.00000015, 'x'), 15, 'written 1.5e-7 by String()');
  t.is(satoshisOf(0.3, 'x'), 30_000_000);
  t.throws(() => satoshisOf(0.000000001, 'x'), { instanceOf: ProviderError }, 'below a satoshi');
  t.throws(() => satoshisOf(-1, 'x'), { instanceOf: ProviderError });
  t.throws(() => satoshisOf('0.1', 'x'), { instanceOf: ProviderError });
});

for (const form of ['current', 'older'] as const) {
  test(`getblock parses the ${form} output form`, (t) => {
    const parsed = parseCoreBlock(block(form, h('a'), 7), h('a'), 7);
    t.is(parsed.txs.length, 2);
    t.true(parsed.txs[0]!.isCoinbase);
    const outputs = parsed.txs[1]!.vout;
    t.deepEqual(outputs[1], { scriptpubkey: hex(PAID.output), scriptpubkey_address: PAID.address!, value: 12_345_678 });
    t.deepEqual(outputs[2], { scriptpubkey: '6a0474657374', value: 0 });
    t.is(outputs[3]!.scriptpubkey_address, undefined, 'a multisig names no single address');
    t.throws(() => parseCoreBlock(block(form, h('a'), 7), h('a'), 8), { instanceOf: ProviderError }, 'another height');
    t.throws(() => parseCoreBlock({ ...block(form, h('a'), 7), tx: [h('c')] }, h('a'), 7), { instanceOf: ProviderError }, 'txids only');
    t.deepEqual(parsed.txs[0]!.spends, [], 'a coinbase spends no output');
    t.deepEqual(parsed.txs[1]!.spends, [
      { txid: h('e'), vout: 0 },
      { txid: h('f'), vout: 3 },
    ]);
    const broken = block(form, h('a'), 7);
    broken.tx[1]!.vin[1] = { txid: h('f') } as never;
    t.throws(() => parseCoreBlock(broken, h('a'), 7), { instanceOf: ProviderError, message: /bad spent vout/ }, 'an input without its vout');
  });
}

test('a batch answer is matched by id, whatever its order, and must answer every call', (t) => {
  const replies = parseBatch(
    [
      { id: 1, result: 5, error: null },
      { id: 0, result: null, error: { code: -8, message: 'out of range' } },
    ],
    ['getblockhash', 'getblockcount'],
  );
  t.deepEqual(replies, [
    { result: null, error: { code: -8, message: 'out of range' } },
    { result: 5, error: null },
  ]);
  t.throws(() => parseBatch([{ id: 0, result: 1 }], ['a', 'b']), { instanceOf: ProviderError });
  t.throws(
    () =>
      parseBatch(
        [
          { id: 0, result: 1 },
          { id: 0, result: 2 },
        ],
        ['a', 'b'],
      ),
    { instanceOf: ProviderError },
  );
  t.throws(() => parseBatch({ result: 1 }, ['a']), { instanceOf: ProviderError });
});

for (const form of ['current', 'older'] as const) {
  test(`a ${form === 'current' ? 'Bitcoin Core 22+' : 'bcoin / Core 21'} node: head, block hashes, a scanned block and the mempool`, async (t) => {
    const node = await startNode(form);
    try {
      const watcher = watcherOn([{ name: 'node', kind: 'bitcoin-core', url: node.url, username: 'rpc', password: 'secret' }]);
      t.deepEqual(await watcher.head(), { height: 101 });
      t.is(await watcher.blockHash(101), h('a'));
      t.is(await watcher.blockHash(102), null, 'above the tip: no block');
      const [scanned] = await watcher.scan(101, 101, watchedSet([PAID.address!]));
      t.like(scanned, { height: 101, hash: h('a'), parentHash: h('0') });
      t.deepEqual(
        scanned!.transfers.map((x) => [x.txHash, x.outputIndex, x.toAddress, x.amountUnits, x.blockHeight]),
        [[h('d'), 1, PAID.address!, 12_345_678n, 101]],
        'the coinbase output and the multisig are not payments',
      );
      t.deepEqual(
        scanned!.spends,
        [
          { txHash: h('e'), outputIndex: 0, spentBy: h('d') },
          { txHash: h('f'), outputIndex: 3, spentBy: h('d') },
        ],
        'every input of the block is a spend; the coinbase spends nothing',
      );
      const mempool = await watcher.mempool!(watchedSet([PAID.address!]));
      t.deepEqual(
        mempool.map((x) => [x.txHash, x.outputIndex, x.amountUnits, x.blockHeight]),
        [[h('d'), 1, 12_345_678n, null]],
        'a transaction gone from the mempool between the two calls is skipped',
      );
      t.true(node.auth.every((a) => a === `Basic ${Buffer.from('rpc:secret').toString('base64')}`));
      const getblocks = node.calls.filter((c) => c.method === 'getblock').map((c) => c.params.slice(1));
      t.deepEqual(getblocks, form === 'current' ? [[2]] : [[2], [true, true]], 'verbosity 2, else (verbose, details)');
    } finally {
      await node.close();
    }
  });
}

test('a cookie file is read at each request; a node answering another network fails over to the next provider', async (t) => {
  const wrong = await startNode('current', { mainnetAddress: true });
  const right = await startNode('older');
  const dir = mkdtempSync(join(tmpdir(), 'gw-cookie-'));
  const cookie = join(dir, '.cookie');
  try {
    writeFileSync(cookie, '__cookie__:one\n');
    const outcomes: ProviderOutcome[] = [];
    const watcher = watcherOn(
      [
        { name: 'wrong', kind: 'bitcoin-core', url: wrong.url, cookieFile: cookie },
        { name: 'right', kind: 'bitcoin-core', url: right.url, cookieFile: cookie },
      ],
      outcomes,
    );
    await watcher.head();
    writeFileSync(cookie, '__cookie__:two\n');
    const [scanned] = await watcher.scan(101, 101, watchedSet([PAID.address!]));
    t.is(scanned!.transfers.length, 1);
    t.deepEqual(
      outcomes.map((o) => [o.provider, o.operation, o.outcome]),
      [
        ['wrong', 'head', 'ok'],
        ['wrong', 'scan', 'malformed'],
        ['right', 'scan', 'ok'],
      ],
    );
    t.deepEqual(wrong.auth, [
      `Basic ${Buffer.from('__cookie__:one').toString('base64')}`,
      ...wrong.auth.slice(1).map(() => `Basic ${Buffer.from('__cookie__:two').toString('base64')}`),
    ]);
    t.is(right.auth[0], `Basic ${Buffer.from('__cookie__:two').toString('base64')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await wrong.close();
    await right.close();
  }
});

test('Esplora and a node in one failover list: a dead Esplora hands head, blocks and the mempool to the node', async (t) => {
  const node = await startNode('current');
  try {
    const outcomes: ProviderOutcome[] = [];
    const watcher = watcherOn(
      [
        { name: 'esplora', url: 'http://127.0.0.1:1' },
        { name: 'node', kind: 'bitcoin-core', url: node.url },
      ],
      outcomes,
    );
    t.deepEqual(await watcher.head(), { height: 101 });
    const [scanned] = await watcher.scan(101, 101, watchedSet([PAID.address!]));
    t.is(scanned!.transfers.length, 1);
    t.is((await watcher.mempool!(watchedSet([PAID.address!]))).length, 1);
    t.deepEqual(
      outcomes.map((o) => [o.provider, o.operation, o.outcome]),
      [
        ['esplora', 'head', 'network'],
        ['node', 'head', 'ok'],
        ['node', 'scan', 'ok'],
        ['node', 'mempool', 'ok'],
      ],
      'the node that answered stays preferred',
    );
  } finally {
    await node.close();
  }
});

test('an unknown provider kind stops the watcher from being built', (t) => {
  t.throws(() => watcherOn([{ name: 'x', kind: 'electrum', url: 'http://127.0.0.1:1' }]), { message: /kind electrum is not one of esplora, bitcoin-core/ });
});
