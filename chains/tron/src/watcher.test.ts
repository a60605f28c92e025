/**
 * TronWatcher against a local HTTP server that REPLAYS RECORDED REAL java-tron / TronGrid responses
 * (TRON mainnet blocks 30864544, 30864600 and 47964392; see test/fixtures/README.md for where each
 * file comes from and which ones were assembled from another endpoint's real data). Tests that need
 * a case the recordings do not hold (a failed transaction, a pool address as recipient) change one
 * field of a recorded response in the test, and say so.
 */
import test from 'ava';
import { watchedSet } from '@gw/chain-api/testing';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { TronWeb } from 'tronweb';
import { ProviderError, ProviderPool, type ChainAdapterDeps, type ChainWatcher, type ProviderEndpoint } from '@gw/chain-api';
import { tronChain } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../test/fixtures/${name}`, import.meta.url), 'utf8');
const adapter = tronChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tronChain.definition);
const MAINNET = tronChain.definition.networks.mainnet;

/** Recorded answers by `path` and, for block endpoints, the requested `num`. */
type Routes = Map<string, string>;
const routeKey = (path: string, num?: unknown): string => (num === undefined ? path : `${path}#${String(num)}`);

function recordedRoutes(): Routes {
  return new Map([
    [routeKey('/wallet/getnowblock'), fixture('getnowblock-47964392.json')],
    [routeKey('/walletsolidity/getnowblock'), fixture('getblockbynum-30864544.json')],
    [routeKey('/wallet/getblockbynum', 30864544), fixture('getblockbynum-30864544.json')],
    [routeKey('/wallet/gettransactioninfobyblocknum', 30864544), fixture('gettransactioninfobyblocknum-30864544.json')],
    [routeKey('/wallet/getblockbynum', 30864600), fixture('getblockbynum-30864600.json')],
    [routeKey('/wallet/gettransactioninfobyblocknum', 30864600), fixture('gettransactioninfobyblocknum-30864600.json')],
    [routeKey('/wallet/getblockbynum', 47964392), fixture('getnowblock-47964392.json')],
    [routeKey('/wallet/gettransactioninfobyblocknum', 47964392), fixture('gettransactioninfobyblocknum-47964392.json')],
    // java-tron's answer for a height it does not have.
    [routeKey('/wallet/getblockbynum', 99999999), '{}'],
  ]);
}

interface Replay {
  readonly url: string;
  readonly requests: { path: string; body: unknown; apiKey: string | undefined }[];
  close(): Promise<void>;
}

async function listen(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A java-tron node replaying `routes`; anything else is a 404 (a test asking for an unrecorded call fails). */
async function replay(routes: Routes = recordedRoutes()): Promise<Replay> {
  const requests: Replay['requests'] = [];
  const { server, url } = await listen((req, raw, res) => {
    const body = raw ? (JSON.parse(raw) as { num?: unknown }) : {};
    const path = req.url ?? '';
    requests.push({ path, body, apiKey: req.headers['tron-pro-api-key'] as string | undefined });
    const answer = routes.get(routeKey(path, body.num)) ?? routes.get(routeKey(path));
    res.writeHead(answer === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(answer ?? '{"Error":"unrecorded"}');
  });
  return { url, requests, close: () => closeServer(server) };
}

/** A provider that always misbehaves in one way. */
async function failing(kind: '500' | '429' | 'hang' | 'not-json' | 'error-object'): Promise<{ url: string; close(): Promise<void> }> {
  const { server, url } = await listen((_req, _body, res) => {
    if (kind === '500') res.writeHead(500).end('internal error');
    else if (kind === '429') res.writeHead(429, { 'retry-after': '2' }).end('{"Error":"rate limited"}');
    else if (kind === 'not-json') res.writeHead(200, { 'content-type': 'application/json' }).end('<html>bad gateway</html>');
    else if (kind === 'error-object') res.writeHead(200, { 'content-type': 'application/json' }).end('{"Error":"class java.lang.NullPointerException : null"}');
    // 'hang': never answers; the pool's timeout fires.
  });
  return { url, close: () => closeServer(server) };
}

function watcherFor(endpoints: readonly ProviderEndpoint[], network = MAINNET, timeoutMs = 5_000): ChainWatcher {
  const providers = new ProviderPool({ chain: 'tron', network: network.id, endpoints, timeoutMs });
  return adapter.createWatcher({ network, providers });
}

const watching = watchedSet;

/** The recorded routes with one recorded answer changed by `edit` (JSON in, JSON out). */
function edited(key: string, edit: (json: any) => void): Routes {
  const routes = recordedRoutes();
  const json = JSON.parse(routes.get(key)!);
  edit(json);
  routes.set(key, JSON.stringify(json));
  return routes;
}

// Recipients of the recorded transfers, in the base58 form TronWeb gives for the node's hex.
const TRX_TO = TronWeb.address.fromHex('4158c85b7b6a5118beb3b23c14fcb2f3551a81d79a');
const TRX_FROM = TronWeb.address.fromHex('41c33eeefda1059afba41d86759e281bcb851edfc8');
const USDT_TO = TronWeb.address.fromHex('410d0707963952f2fba59dd06f2b425ace40b492fe');
const USDT_FROM = TronWeb.address.fromHex('41e4b8075df69297bc24cc4bbaf48cd17206e1f62c');

test('head(): tip from /wallet/getnowblock, finalized from /walletsolidity/getnowblock, API key header sent', async (t) => {
  const node = await replay();
  try {
    const watcher = watcherFor([{ name: 'trongrid', url: node.url, headers: { 'TRON-PRO-API-KEY': 'key-1' } }]);
    t.deepEqual(await watcher.head(), { height: 47964392, finalized: 30864544 });
    t.deepEqual(
      node.requests.map((r) => r.path),
      ['/wallet/getnowblock', '/walletsolidity/getnowblock'],
    );
    t.true(node.requests.every((r) => r.apiKey === 'key-1'));
  } finally {
    await node.close();
  }
});

test('head(): a node without the solidity API still gives the tip, without finalized', async (t) => {
  const routes = recordedRoutes();
  routes.delete(routeKey('/walletsolidity/getnowblock'));
  const node = await replay(routes);
  try {
    t.deepEqual(await watcherFor([{ name: 'a', url: node.url }]).head(), { height: 47964392 });
  } finally {
    await node.close();
  }
});

test('blockHash(): blockID of getblockbynum; null for a height the node does not have', async (t) => {
  const node = await replay();
  try {
    const watcher = watcherFor([{ name: 'a', url: node.url }]);
    t.is(await watcher.blockHash(30864544), '0000000001d6f4a09f60c27befccff6fe3cc593b2d6c46cdc79d3fd4f55db859');
    t.is(await watcher.blockHash(99999999), null);
    t.deepEqual(
      node.requests.map((r) => r.body),
      [{ num: 30864544 }, { num: 99999999 }],
    );
  } finally {
    await node.close();
  }
});

test('scan(): a recorded TRX TransferContract to a watched address', async (t) => {
  const node = await replay();
  try {
    const watched = watching([TRX_TO]);
    const [block, ...rest] = await watcherFor([{ name: 'a', url: node.url }]).scan(30864544, 30864544, watched);
    t.is(rest.length, 0);
    t.is(block!.height, 30864544);
    t.is(block!.hash, '0000000001d6f4a09f60c27befccff6fe3cc593b2d6c46cdc79d3fd4f55db859');
    t.is(block!.parentHash, '0000000001d6f49f615231bdeeddd8b563c746188d5e270a58afc87b059f29de');
    t.is(block!.time.toISOString(), new Date(1623055923000).toISOString());
    t.deepEqual(block!.transfers, [
      {
        chain: 'tron',
        network: 'tron',
        coin: 'trx',
        txHash: '979e0823f455f3b67d65b351052f0265233f422792d31d5dbeb7c24737dd5556',
        outputIndex: 0,
        toAddress: TRX_TO,
        fromAddress: TRX_FROM,
        amountUnits: 50_000_000n,
        blockHeight: 30864544,
        blockHash: '0000000001d6f4a09f60c27befccff6fe3cc593b2d6c46cdc79d3fd4f55db859',
        observedAt: new Date(1623055923000),
      },
    ]);
    t.deepEqual(watched.calls, [[TRX_TO]]);
  } finally {
    await node.close();
  }
});

test('scan(): a recorded USDT Transfer log (contract hex without 41) gives usdt_trc20, outputIndex = log index + 1', async (t) => {
  const node = await replay();
  try {
    const [block] = await watcherFor([{ name: 'a', url: node.url }]).scan(30864600, 30864600, watching([USDT_TO]));
    t.deepEqual(block!.transfers, [
      {
        chain: 'tron',
        network: 'tron',
        coin: 'usdt_trc20',
        txHash: '0af79242191c6728b79e858a36a4b5c65e4e52b9fcee4dc5af30eac57b6d0953',
        outputIndex: 1,
        toAddress: USDT_TO,
        fromAddress: USDT_FROM,
        amountUnits: 532_079_999n,
        blockHeight: 30864600,
        blockHash: '0000000001d6f4d8000000000000000000000000000000000000000000000000',
        observedAt: new Date(1623056091000),
      },
    ]);
  } finally {
    await node.close();
  }
});

test('scan(): a range comes back ascending with one filter call for all its candidates (recorded block 30864544 also served, renumbered, as 30864545)', async (t) => {
  const routes = edited(routeKey('/wallet/getblockbynum', 30864544), () => undefined);
  const next = JSON.parse(routes.get(routeKey('/wallet/getblockbynum', 30864544))!);
  next.blockID = `0000000001d6f4a1${next.blockID.slice(16)}`;
  next.block_header.raw_data.number = 30864545;
  next.block_header.raw_data.parentHash = '0000000001d6f4a09f60c27befccff6fe3cc593b2d6c46cdc79d3fd4f55db859';
  next.transactions[0].raw_data.contract[0].parameter.value.to_address = '4162d0adca402b12e898b8d3a2debc77ce41c8ecc4';
  routes.set(routeKey('/wallet/getblockbynum', 30864545), JSON.stringify(next));
  const infos = JSON.parse(routes.get(routeKey('/wallet/gettransactioninfobyblocknum', 30864544))!);
  infos[0].blockNumber = 30864545;
  routes.set(routeKey('/wallet/gettransactioninfobyblocknum', 30864545), JSON.stringify(infos));
  const node = await replay(routes);
  try {
    const other = TronWeb.address.fromHex('4162d0adca402b12e898b8d3a2debc77ce41c8ecc4');
    const watched = watching([TRX_TO]);
    const blocks = await watcherFor([{ name: 'a', url: node.url }]).scan(30864544, 30864545, watched);
    t.deepEqual(
      blocks.map((b) => [b.height, b.parentHash.slice(0, 16)]),
      [
        [30864544, '0000000001d6f49f'],
        [30864545, '0000000001d6f4a0'],
      ],
    );
    t.deepEqual(
      blocks.map((b) => b.transfers.map((x) => x.toAddress)),
      [[TRX_TO], []],
    );
    t.deepEqual(watched.calls, [[TRX_TO, other]]);
    t.deepEqual(
      node.requests.map((r) => [r.path, (r.body as { num: number }).num]),
      [
        ['/wallet/getblockbynum', 30864544],
        ['/wallet/gettransactioninfobyblocknum', 30864544],
        ['/wallet/getblockbynum', 30864545],
        ['/wallet/gettransactioninfobyblocknum', 30864545],
      ],
    );
  } finally {
    await node.close();
  }
});

test('scan(): watching nothing in the block gives its identity with no transfers', async (t) => {
  const node = await replay();
  try {
    const watched = watching([]);
    const [block] = await watcherFor([{ name: 'a', url: node.url }]).scan(47964392, 47964392, watched);
    t.is(block!.hash, '0000000002dbe0e890dddd5df8bb75251f386daee6e5b7a6cf777d493e5d894c');
    t.is(block!.parentHash, '0000000002dbe0e7cfc367b39b54d4a53beda9b70a493a724561cad264f38e37');
    t.deepEqual(block!.transfers, []);
    // The recorded transfer of 1 sun was a candidate, asked about once.
    t.deepEqual(watched.calls, [[TronWeb.address.fromHex('4162d0adca402b12e898b8d3a2debc77ce41c8ecc4')]]);
  } finally {
    await node.close();
  }
});

test('scan(): failed transactions move nothing (contractRet and receipt.result; recorded answers with that field changed)', async (t) => {
  for (const routes of [
    edited(routeKey('/wallet/getblockbynum', 30864544), (b) => (b.transactions[0].ret[0].contractRet = 'REVERT')),
    edited(routeKey('/wallet/getblockbynum', 30864600), (b) => (b.transactions[0].ret[0].contractRet = 'OUT_OF_ENERGY')),
    edited(routeKey('/wallet/gettransactioninfobyblocknum', 30864600), (infos) => (infos[0].receipt.result = 'REVERT')),
    edited(routeKey('/wallet/gettransactioninfobyblocknum', 30864600), (infos) => (infos[0].result = 'FAILED')),
  ]) {
    const node = await replay(routes);
    try {
      const watcher = watcherFor([{ name: 'a', url: node.url }]);
      const blocks = [...(await watcher.scan(30864544, 30864544, watching([TRX_TO]))), ...(await watcher.scan(30864600, 30864600, watching([USDT_TO])))];
      const failedHeight = routes.get(routeKey('/wallet/getblockbynum', 30864544))!.includes('REVERT') ? 30864544 : 30864600;
      t.deepEqual(blocks.find((b) => b.height === failedHeight)!.transfers, [], `height ${failedHeight}`);
      t.is(blocks.find((b) => b.height !== failedHeight)!.transfers.length, 1);
    } finally {
      await node.close();
    }
  }
});

test('scan(): outputIndex counts every log of the block in order (recorded block with one extra log ahead of the USDT one)', async (t) => {
  const routes = edited(routeKey('/wallet/gettransactioninfobyblocknum', 30864600), (infos) => {
    const usdt = infos[0].log[0];
    // A log of another contract (the USDT contract hex with its first byte changed) comes first.
    infos[0].log.unshift({ ...usdt, address: `00${usdt.address.slice(2)}` });
  });
  const node = await replay(routes);
  try {
    const [block] = await watcherFor([{ name: 'a', url: node.url }]).scan(30864600, 30864600, watching([USDT_TO]));
    t.deepEqual(
      block!.transfers.map((x) => [x.coin, x.outputIndex]),
      [['usdt_trc20', 2]],
    );
  } finally {
    await node.close();
  }
});

test('scan(): USDT is only read on the network whose contract the definition lists (Nile has none)', async (t) => {
  const node = await replay();
  try {
    const nile = tronChain.definition.networks.testnets.find((n) => n.id === 'nile')!;
    const [block] = await watcherFor([{ name: 'a', url: node.url }], nile).scan(30864600, 30864600, watching([USDT_TO]));
    t.deepEqual(block!.transfers, []);
  } finally {
    await node.close();
  }
});

test("toAddress is byte-for-byte the adapter's derived address (recorded block paying a derived pool address instead)", async (t) => {
  const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  const xpub = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(MNEMONIC).computeSeed()).derivePath("m/44'/195'/0'").neuter().extendedKey;
  const derived = adapter.deriveAddress(adapter.parseAccountKey(xpub, 'mainnet'), 7).address;
  const hex41 = TronWeb.address.toHex(derived).toLowerCase();
  const routes = edited(routeKey('/wallet/getblockbynum', 30864544), (b) => (b.transactions[0].raw_data.contract[0].parameter.value.to_address = hex41));
  const node = await replay(routes);
  try {
    const [block] = await watcherFor([{ name: 'a', url: node.url }]).scan(30864544, 30864544, watching([derived]));
    t.is(block!.transfers.length, 1);
    t.is(block!.transfers[0]!.toAddress, derived);
    t.is(block!.transfers[0]!.amountUnits, 50_000_000n);
  } finally {
    await node.close();
  }
});

test('amounts above 2^53 sun stay exact (recorded TransferContract with a large amount)', async (t) => {
  const routes = recordedRoutes();
  const key = routeKey('/wallet/getblockbynum', 30864544);
  routes.set(key, routes.get(key)!.replace('"amount": 50000000', '"amount": 90071992547409934'));
  const node = await replay(routes);
  try {
    const [block] = await watcherFor([{ name: 'a', url: node.url }]).scan(30864544, 30864544, watching([TRX_TO]));
    t.is(block!.transfers[0]!.amountUnits, 90071992547409934n);
  } finally {
    await node.close();
  }
});

test('scan(): a block the provider does not have, or infos not matching its transactions, fail the provider', async (t) => {
  const node = await replay(
    edited(routeKey('/wallet/gettransactioninfobyblocknum', 30864600), (infos) => {
      infos.length = 0;
    }),
  );
  try {
    const watcher = watcherFor([{ name: 'a', url: node.url }]);
    const missing = await t.throwsAsync(watcher.scan(99999999, 99999999, watching([])), { instanceOf: ProviderError });
    t.is(missing!.failure, 'malformed');
    const mismatch = await t.throwsAsync(watcher.scan(30864600, 30864600, watching([USDT_TO])), { instanceOf: ProviderError });
    t.is(mismatch!.failure, 'malformed');
    t.regex(mismatch!.message, /infos do not match/);
  } finally {
    await node.close();
  }
});

for (const [kind, failure] of [
  ['500', 'http_error'],
  ['429', 'rate_limited'],
  ['hang', 'timeout'],
  ['not-json', 'malformed'],
  ['error-object', 'malformed'],
] as const) {
  test(`failover: first provider ${kind} -> the second one's recorded answer is used; both failing -> ProviderError ${failure}`, async (t) => {
    const bad = await failing(kind);
    const bad2 = await failing(kind);
    const node = await replay();
    try {
      // A short timeout only where a provider hangs (the test waits it out).
      const timeoutMs = kind === 'hang' ? 1_000 : 5_000;
      const watcher = watcherFor(
        [
          { name: 'bad', url: bad.url },
          { name: 'good', url: node.url },
        ],
        MAINNET,
        timeoutMs,
      );
      const [block] = await watcher.scan(30864544, 30864544, watching([TRX_TO]));
      t.is(block!.transfers[0]!.amountUnits, 50_000_000n);
      t.is(await watcher.blockHash(30864544), '0000000001d6f4a09f60c27befccff6fe3cc593b2d6c46cdc79d3fd4f55db859');

      const broken = watcherFor(
        [
          { name: 'bad', url: bad.url },
          { name: 'bad2', url: bad2.url },
        ],
        MAINNET,
        timeoutMs,
      );
      const error = await t.throwsAsync(broken.head(), { instanceOf: ProviderError });
      t.is(error!.failure, failure);
      t.is(error!.provider, 'bad2');
    } finally {
      await Promise.all([bad.close(), bad2.close(), node.close()]);
    }
  });
}

test('maxBlocksPerScan is set', (t) => {
  const providers = new ProviderPool({ chain: 'tron', network: 'tron', endpoints: [{ name: 'a', url: 'http://127.0.0.1:1' }], timeoutMs: 100 });
  t.is(adapter.createWatcher({ network: MAINNET, providers }).maxBlocksPerScan, 10);
});
