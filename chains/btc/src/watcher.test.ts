/**
 * BtcWatcher against local HTTP servers (node:http on 127.0.0.1) that REPLAY RECORDED REAL ESPLORA
 * RESPONSES from chains/btc/test/fixtures (`src/testing/esplora-replay.ts`; see the README there for
 * which block/transaction each file is, where it was recorded, and which files were built from
 * another endpoint's real data). A second server plays a failing provider (500, 429, silence,
 * broken JSON) to exercise the pool's failover.
 */
import { pbkdf2Sync } from 'node:crypto';
import test from 'ava';
import { jsonAnswer, startReplayServer, textAnswer, tooManyRequestsAnswer, watchedSet, type ReplayAnswer, type ReplayServer } from '@gw/chain-api/testing';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import {
  ProviderError,
  WatcherLocalError,
  ProviderPool,
  type ChainAdapterDeps,
  type ChainWatcher,
  type NetworkDefinition,
  type ProviderFailure,
  type ProviderOutcome,
} from '@gw/chain-api';
import { parseTxList } from './esplora.js';
import { btcChain } from './index.js';
import {
  btcFixture as fixture,
  esploraHandler,
  GENESIS,
  MAIN_828669,
  MEMPOOL_ADDRESS,
  MEMPOOL_TX,
  recordedEsploraAnswers,
  TESTNET_1259783,
  TX_833101,
} from './testing/esplora-replay.js';

const adapter = btcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, btcChain.definition);
const MAINNET = btcChain.definition.networks.mainnet;
const TESTNET = btcChain.definition.networks.testnets.find((n) => n.id === 'testnet')!;

const TEST_1259783 = TESTNET_1259783.hash;
const BLOCK_833101 = '00000000000000000002d045520eb8425f4d4fab03acd36bc6c75796d8f6cebd';

/** Path → recorded answer, per network (`recordedEsploraAnswers`); a test may add one while its servers run. */
const ROUTES = { mainnet: recordedEsploraAnswers('mainnet'), testnet: recordedEsploraAnswers('testnet') };

type Mode = 'replay-mainnet' | 'replay-testnet' | '500' | '429' | 'silent' | 'broken-json';

/** What a failing provider answers every request with; `null`: it never answers, so the pool's timeout fires. */
const FAILING: Record<Exclude<Mode, 'replay-mainnet' | 'replay-testnet'>, ReplayAnswer | null> = {
  '500': textAnswer('Internal Server Error', 500),
  '429': tooManyRequestsAnswer({ 'retry-after': '7' }),
  silent: null,
  'broken-json': jsonAnswer('{"id":"0000'),
};

function startProvider(mode: Mode): Promise<ReplayServer> {
  if (mode === 'replay-mainnet') return startReplayServer('', esploraHandler(ROUTES.mainnet));
  if (mode === 'replay-testnet') return startReplayServer('', esploraHandler(ROUTES.testnet));
  const answer = FAILING[mode];
  return startReplayServer('', () => answer);
}

/** The paths `provider` was asked, in order. */
const asked = (provider: ReplayServer): string[] => provider.requests.map((r) => r.path);

interface Setup {
  readonly watcher: ChainWatcher;
  readonly providers: ReplayServer[];
  readonly outcomes: ProviderOutcome[];
}

async function setup(network: NetworkDefinition, modes: Mode[], timeoutMs = 2000): Promise<Setup> {
  const providers = await Promise.all(modes.map(startProvider));
  const outcomes: ProviderOutcome[] = [];
  const pool = new ProviderPool({
    chain: 'btc',
    network: network.id,
    endpoints: providers.map((p, i) => ({ name: `${modes[i]}#${i}`, url: p.url })),
    timeoutMs,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  const watcher = adapter.createWatcher({ network, providers: pool });
  return { watcher, providers, outcomes };
}

async function teardown({ providers }: Setup): Promise<void> {
  await Promise.all(providers.map((p) => p.close()));
}

const watching = watchedSet;

// The receive key of the BIP39 "abandon ... about" mnemonic at m/84'/1'/0' (testnet, BIP84).
const bip32 = BIP32Factory(ecc);
const ABANDON_SEED = pbkdf2Sync(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  'mnemonic',
  2048,
  64,
  'sha512',
);
const TESTNET_TPUB = bip32
  .fromSeed(ABANDON_SEED, { wif: 0xef, bip32: { public: 0x043587cf, private: 0x04358394 } })
  .derivePath("m/84'/1'/0'")
  .neutered()
  .toBase58();
const derivedTestnetAddress0 = adapter.deriveAddress(adapter.parseAccountKey(TESTNET_TPUB, 'testnet'), 0).address;

test('adapter builds a BtcWatcher with a small scan range', (t) => {
  const pool = new ProviderPool({ chain: 'btc', network: 'bitcoin', endpoints: [{ name: 'x', url: 'http://127.0.0.1:1' }], timeoutMs: 10 });
  const watcher = adapter.createWatcher({ network: MAINNET, providers: pool });
  t.is(watcher.maxBlocksPerScan, 3);
  t.is(typeof watcher.mempool, 'function');
});

test('head(): the tip height from /blocks/tip/height, no finalized height', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    t.deepEqual(await s.watcher.head(), { height: 698767 });
    t.deepEqual(asked(s.providers[0]!), ['/blocks/tip/height']);
  } finally {
    await teardown(s);
  }
});

test('blockHash(): the hash at a height, null past the tip (404)', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    t.is(await s.watcher.blockHash(615615), '000000000000000000067bea442af50a91377ac796e63b8d284354feff4042b3');
    t.is(await s.watcher.blockHash(999999999), null);
  } finally {
    await teardown(s);
  }
});

test("scan(): a payment to a derived address, in the adapter's exact address form", async (t) => {
  t.is(derivedTestnetAddress0, 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl');
  const s = await setup(TESTNET, ['replay-testnet']);
  try {
    const watched = watching([derivedTestnetAddress0]);
    const [block, ...rest] = await s.watcher.scan(1259783, 1259783, watched);
    t.is(rest.length, 0);
    t.is(block!.height, 1259783);
    t.is(block!.hash, TEST_1259783);
    t.is(block!.parentHash, '0000000060f94940783997588ce41375c8131454ee87f07e0813da23b182afb2');
    t.is(block!.time.toISOString(), '2018-01-21T10:35:41.000Z');
    t.deepEqual(block!.transfers, [
      {
        chain: 'btc',
        network: 'testnet',
        coin: 'btc',
        txHash: '9fca06b2a6469d401f33ef86d29ea4cdd832c35e6384f5df663e9fd4a95df3ac',
        outputIndex: 0,
        toAddress: derivedTestnetAddress0,
        amountUnits: 1_000_000n,
        blockHeight: 1259783,
        blockHash: TEST_1259783,
        observedAt: new Date('2018-01-21T10:35:41.000Z'),
      },
    ]);
    t.deepEqual(block!.spends, [
      {
        txHash: '4490a0d82939847fe23ea026d21e58e2ef6eefe28ce4237d09148345501456b5',
        outputIndex: 0,
        spentBy: '9fca06b2a6469d401f33ef86d29ea4cdd832c35e6384f5df663e9fd4a95df3ac',
      },
    ]);
    // One filter call for the whole scan, with every output address of the block.
    t.deepEqual(watched.calls, [['tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl', 'tb1qr6ch6nwvgrwvz5y3t9l9xe6r3me7dmkpd4zwna']]);
    t.deepEqual(asked(s.providers[0]!), ['/block-height/1259783', `/block/${TEST_1259783}`, `/block/${TEST_1259783}/txs/0`]);
  } finally {
    await teardown(s);
  }
});

test('scan(): outputs to unwatched addresses are left out, the block is still reported', async (t) => {
  const s = await setup(TESTNET, ['replay-testnet']);
  try {
    const [block] = await s.watcher.scan(1259783, 1259783, watching(['tb1qd7spv5q28348xl4myc8zmh983w5jx32cjhkn97']));
    t.is(block!.hash, TEST_1259783);
    t.deepEqual(block!.transfers, []);
  } finally {
    await teardown(s);
  }
});

test('scan(): pages through every 25 transactions of a block and keeps vout indexes', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    const watched = watching(['bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c', 'bc1pght6t3z93cde3xspersa6kg8l6aw5m6m77r3hd209mm2n0cus59shj4fnq']);
    const [block] = await s.watcher.scan(828669, 828669, watched);
    t.deepEqual(asked(s.providers[0]!), ['/block-height/828669', `/block/${MAIN_828669}`, `/block/${MAIN_828669}/txs/0`, `/block/${MAIN_828669}/txs/25`]);
    t.is(block!.parentHash, '0000000000000000000236443a3f4784ec904f5c500bd2e82838756b5657bb85');
    // Spends come from every page: 0dbf4436 (page 0) spends c5dafd34:1; page 25's coinbase none.
    t.deepEqual(block!.spends, [
      {
        txHash: 'c5dafd34df589ae06345852ca79b4e8d58a95a90df8a42b5ba930c14926f2470',
        outputIndex: 1,
        spentBy: '0dbf4436b3493c08b85f11755f672f2b40beddb8f2b65c6bb1e68074c85b53f3',
      },
    ]);
    t.deepEqual(
      block!.transfers.map((tr) => [tr.network, tr.txHash, tr.outputIndex, tr.toAddress, tr.amountUnits, tr.blockHeight]),
      [
        ['bitcoin', '0dbf4436b3493c08b85f11755f672f2b40beddb8f2b65c6bb1e68074c85b53f3', 0, 'bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c', 294n, 828669],
        [
          'bitcoin',
          '0dbf4436b3493c08b85f11755f672f2b40beddb8f2b65c6bb1e68074c85b53f3',
          1,
          'bc1pght6t3z93cde3xspersa6kg8l6aw5m6m77r3hd209mm2n0cus59shj4fnq',
          17_556_669n,
          828669,
        ],
      ],
    );
  } finally {
    await teardown(s);
  }
});

test('scan(): the genesis block (coinbase paying a bare public key) gives no transfers and a zero parent', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    const watched = watching([]);
    const [block] = await s.watcher.scan(0, 0, watched);
    t.is(block!.hash, GENESIS);
    t.is(block!.parentHash, '0'.repeat(64));
    t.is(block!.time.getTime(), 1231006505 * 1000);
    t.deepEqual(block!.transfers, []);
    t.deepEqual(block!.spends, [], 'a coinbase spends nothing (its null outpoint is not an output)');
    t.deepEqual(watched.calls, []);
  } finally {
    await teardown(s);
  }
});

test('scan(): refuses a range wider than maxBlocksPerScan', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    await t.throwsAsync(() => s.watcher.scan(0, 3, watching([])), { message: /maxBlocksPerScan/ });
    t.deepEqual(asked(s.providers[0]!), []);
  } finally {
    await teardown(s);
  }
});

test('scan(): a provider of another network is malformed (its addresses do not match this network)', async (t) => {
  // A mainnet watcher pointed at a testnet Esplora.
  const s = await setup(MAINNET, ['replay-testnet']);
  try {
    const error = await t.throwsAsync(() => s.watcher.scan(1259783, 1259783, watching([])), { instanceOf: ProviderError });
    t.is(error.failure, 'malformed');
    t.regex(error.message, /tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl is not bc1q/);
  } finally {
    await teardown(s);
  }
});

test('mempool(): unconfirmed outputs to active addresses, without block', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    const before = Date.now();
    const transfers = await s.watcher.mempool!(watching([], [MEMPOOL_ADDRESS, 'bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c']));
    t.is(transfers.length, 1);
    const [transfer] = transfers;
    t.like(transfer, {
      chain: 'btc',
      network: 'bitcoin',
      coin: 'btc',
      txHash: '5f753368e7eeaa3e8629ce3f826fe8dfac1fd628ccd6651c87fe2ead18fd8249',
      outputIndex: 0,
      toAddress: MEMPOOL_ADDRESS,
      amountUnits: 100_000n,
      blockHeight: null,
      blockHash: null,
    });
    t.true(transfer!.observedAt.getTime() >= before);
    t.deepEqual(
      asked(s.providers[0]!).sort(),
      [`/address/${MEMPOOL_ADDRESS}/txs/mempool`, '/address/bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c/txs/mempool'].sort(),
    );
  } finally {
    await teardown(s);
  }
});

test('transactionIn(): one GET /tx/:txid gives the block that holds it and its transfers to watched addresses', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    const found = await s.watcher.transactionIn!(TX_833101, BLOCK_833101, watching(['bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c']));
    t.is(found?.height, 833101);
    t.is(found?.blockHash, BLOCK_833101);
    t.is(found?.transfers.length, 1, 'only the output to the watched address');
    t.like(found?.transfers[0], {
      txHash: TX_833101,
      outputIndex: 0,
      toAddress: 'bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c',
      amountUnits: 294n,
      blockHeight: 833101,
      blockHash: BLOCK_833101,
    });
    t.deepEqual(asked(s.providers[0]!), [`/tx/${TX_833101}`], 'one request, not the block’s pages');
  } finally {
    await teardown(s);
  }
});

test('transactionIn(): null for a transaction the provider has only in its mempool, or not at all (404)', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet']);
  try {
    t.is(await s.watcher.transactionIn!(MEMPOOL_TX, BLOCK_833101, watching([MEMPOOL_ADDRESS])), null);
    t.is(await s.watcher.transactionIn!('ab'.repeat(32), BLOCK_833101, watching([MEMPOOL_ADDRESS])), null);
  } finally {
    await teardown(s);
  }
});

test('transactionIn(): an answer about another transaction is malformed, and the next provider is asked', async (t) => {
  const s = await setup(MAINNET, ['replay-mainnet', 'replay-mainnet']);
  try {
    // The first provider answers the recorded transaction for any id (a provider that confuses them).
    const path = `/tx/${'cd'.repeat(32)}`;
    ROUTES.mainnet[path] = fixture('mainnet-tx-0dbf4436.json');
    await t.throwsAsync(() => s.watcher.transactionIn!('cd'.repeat(32), BLOCK_833101, watching([], [])), { instanceOf: ProviderError });
    t.true(s.outcomes.every((o) => o.outcome === 'malformed'));
    t.is(s.outcomes.length, 2, 'both providers were asked');
    delete ROUTES.mainnet[path];
  } finally {
    await teardown(s);
  }
});

const FAILURES: [Mode, ProviderFailure][] = [
  ['500', 'http_error'],
  ['429', 'rate_limited'],
  ['silent', 'timeout'],
  ['broken-json', 'malformed'],
];

for (const [mode, failure] of FAILURES) {
  test(`failover: first provider ${mode} → the second provider's answer is used`, async (t) => {
    const s = await setup(TESTNET, [mode, 'replay-testnet'], mode === 'silent' ? 1_000 : 5_000);
    try {
      const [block] = await s.watcher.scan(1259783, 1259783, watching([derivedTestnetAddress0]));
      t.is(block!.transfers.length, 1);
      t.is(block!.transfers[0]!.amountUnits, 1_000_000n);
      t.true(s.providers[0]!.requests.length > 0);
      t.deepEqual(
        s.outcomes.map((o) => [o.provider, o.outcome]),
        [
          [`${mode}#0`, failure],
          ['replay-testnet#1', 'ok'],
        ],
      );
    } finally {
      await teardown(s);
    }
  });

  test(`all providers ${mode} → ProviderError '${failure}'`, async (t) => {
    const s = await setup(MAINNET, [mode, mode], mode === 'silent' ? 1_000 : 5_000);
    try {
      const error = await t.throwsAsync(() => s.watcher.head(), { instanceOf: ProviderError });
      t.is(error.failure, failure);
      t.is(error.provider, `${mode}#1`);
      t.is(s.providers[0]!.requests.length, 1);
      t.is(s.providers[1]!.requests.length, 1);
    } finally {
      await teardown(s);
    }
  });
}

test("a failure of the watched-address lookup (ours, not the provider's) is thrown on without failover", async (t) => {
  const s = await setup(TESTNET, ['replay-testnet', 'replay-testnet']);
  try {
    const broken = { filter: async () => Promise.reject(new WatcherLocalError('database down')), active: async () => [] };
    await t.throwsAsync(() => s.watcher.scan(1259783, 1259783, broken), { instanceOf: WatcherLocalError, message: 'database down' });
    t.is(s.providers[1]!.requests.length, 0, 'the second provider was not asked');
    t.false(
      s.outcomes.some((o) => o.outcome !== 'ok'),
      'no provider failure counted',
    );
  } finally {
    await teardown(s);
  }
});

test('failover: a provider that failed stays behind the one that answered', async (t) => {
  const s = await setup(MAINNET, ['500', 'replay-mainnet']);
  try {
    t.deepEqual(await s.watcher.head(), { height: 698767 });
    t.is(await s.watcher.blockHash(615615), '000000000000000000067bea442af50a91377ac796e63b8d284354feff4042b3');
    t.is(s.providers[0]!.requests.length, 1);
  } finally {
    await teardown(s);
  }
});

test('Esplora transactions: each input names the outpoint it spends; a coinbase spends none; an input without one is malformed', (t) => {
  const [tx] = parseTxList(JSON.parse(fixture('testnet-block-1259783-txs-0.json')), 'page', 25);
  t.deepEqual(tx!.spends, [{ txid: '4490a0d82939847fe23ea026d21e58e2ef6eefe28ce4237d09148345501456b5', vout: 0 }]);
  const [coinbase] = parseTxList(JSON.parse(fixture('mainnet-block-0-txs-0.json')), 'page', 25);
  t.true(coinbase!.isCoinbase);
  t.deepEqual(coinbase!.spends, []);
  const broken = JSON.parse(fixture('testnet-block-1259783-txs-0.json')) as { vin: Record<string, unknown>[] }[];
  delete broken[0]!.vin[0]!['vout'];
  t.throws(() => parseTxList(broken, 'page', 25), { instanceOf: ProviderError, message: /bad spent vout/ });
});
