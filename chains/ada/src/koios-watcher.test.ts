/**
 * AdaWatcher through Koios API v1 (`kind: 'koios'`), against a local HTTP server that REPLAYS
 * RECORDED REAL Koios answers (the package's Koios replay, `src/testing/koios-replay.ts`, of
 * chains/ada/test/fixtures/koios; its README names each recording, where it comes from and what
 * was converted, trimmed or built). The server answers Koios's PostgREST requests from the
 * recorded rows: `/blocks` filtered by `block_height`, `/block_txs` and `/tx_info` by the hashes in
 * the request body, with `offset`/`limit` paging, and it refuses a body above the public tier's
 * 1 kB (HTTP 413 here; the limit is Koios's documented one). Failure modes (500, 429, non-JSON, a
 * wrongly shaped row) are served by the same server under other path prefixes.
 */
import { readFileSync } from 'node:fs';
import test, { type ExecutionContext } from 'ava';
import { jsonAnswer, startReplayServer, tooManyRequestsAnswer, watchedSet, type ReplayAnswer } from '@gw/chain-api/testing';
import { ProviderError, ProviderPool, type ChainAdapterDeps, type NetworkDefinition, type ProviderEndpoint, type ProviderOutcome } from '@gw/chain-api';
import { adaChain } from './index.js';
import { parseKoiosTx } from './koios.js';
import { batchesWithin, KOIOS_PUBLIC_BODY_BYTES, KOIOS_REGISTERED_BODY_BYTES, koiosBodyLimit, txInfoBody } from './koios-reader.js';
import { koiosFixture as rows, koiosHandler, recordedKoiosRows, type KoiosRows } from './testing/koios-replay.js';

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;
const fixture = (name: string): string => readFileSync(new URL(`../test/fixtures/${name}`, import.meta.url), 'utf8');
const clone = <T>(value: T): T => structuredClone(value);

const PREPROD = adaChain.definition.networks.testnets[0];
const MAINNET = adaChain.definition.networks.mainnet;

// Former public testnet block 3338631 and its two recorded transactions (fixtures/koios/README.md).
const BLOCK = 'f75fea40852ed7d7f539d008e45255725daef8553ae7162750836f279570813a';
const PARENT = '8cf6eb4542daad9161a3c298394c87aa666c2861da2f463d656199afa65390d7';
const BLOCK_TIME = new Date(1645465882 * 1000);
/** A plain payment: 2 inputs of one wallet, change and 4 ada to a script address. */
const PAY = '928052b80bfc23801da525a6bf8f805da36f22fa0fd5fec2198b0746eb82b72b';
/** A Plutus transaction: spends two outputs at a script address, one collateral input. */
const PLUTUS = 'c7e96e4cd6aa9e3afbc7b32d1e8023daf4197931f1ea61d2bdfc7a2e5e017cf1';
const ADDR = {
  payer: 'addr_test1qzf9uxs6xgprx4zt20qtsasxut8uw6quv34xlkmd26yuk5xe70s0yf5c3sefnrft6gdajkpz29t8lsn0kcr5xqsf34qqxd6n4f',
  payScript: 'addr_test1wphyve8r76kvfr5yn6k0fcmq0mn2uf6c6mvtsrafmr7awcg0vnzpg',
  plutusWallet: 'addr_test1qr9af58y3thhx00ausdvcqz440mq53sfkwg83sqgksz99e635f2udx2wg8tfj878n3kxef2sxwk5479allqpqapnd68swlgj7u',
  plutusScript: 'addr_test1wpzjtlyp6v4qx6gzjm4zc7lsdufw597507y060qhk84vpjsjd625n',
  plutusPayee: 'addr_test1qrhp68zj7prsksswgl6mgfkld3vejgam0tf5x7830s8zzafadr9a90j4usj8qhn3fhcf9fx8m4g43k222sge8mnpyu2qysm9hs',
};
/** The Plutus transaction's collateral (fixtures/koios/README.md). */
const COLLATERAL = { txHash: '982902b13bec3ff10c078b829ba5bf829925e76feed389f9b8b91fd2509a8684', outputIndex: 0, spentBy: PLUTUS };
/** Ten consecutive recorded blocks without transactions, 3693695..3693704, and the block below them. */
const EMPTY_FROM = 3693695;
const BELOW_EMPTY = 'f883518accecd5004b762b4d66e82154f77f7044f770ba3abaaf91fe54c3b455';

/** The testnet's recorded rows, which a test may change into a variant. */
const testnet = (): KoiosRows => recordedKoiosRows('testnet');

type Mode = 'ok' | 'e500' | 'e429' | 'garbage' | 'shape';

interface Replay {
  url(mode: Mode, net?: 'testnet' | 'mainnet'): string;
  /** Requests served in ok mode: `METHOD path` and, for POSTs, the body as sent. */
  readonly served: { readonly request: string; readonly body?: Json }[];
}

/** What a failing instance answers every request with, by the mode its URL names. */
const FAILING: Record<Exclude<Mode, 'ok'>, ReplayAnswer> = {
  e500: jsonAnswer({ message: 'upstream unavailable' }, 500),
  e429: tooManyRequestsAnswer({ 'retry-after': '60' }),
  garbage: jsonAnswer('<html>502 Bad Gateway</html>'),
  shape: jsonAnswer([{ hash: null, block_height: '3694253' }]),
};

/**
 * Starts the replay server for one test (`koiosHandler` of the package's test support): a URL
 * `/<mode>/<network>` is one Koios instance. `nets` replaces a network's rows for tests that need
 * a variant of a recording (said so where they are made).
 */
async function replay(t: ExecutionContext, nets: Partial<Record<'testnet' | 'mainnet', KoiosRows>> = {}): Promise<Replay> {
  const instances = {
    testnet: koiosHandler(nets.testnet ?? testnet()),
    mainnet: koiosHandler(nets.mainnet ?? recordedKoiosRows('mainnet')),
  };
  const served: Replay['served'][number][] = [];
  const server = await startReplayServer('', (request) => {
    const url = new URL(request.path, 'http://replay');
    const [, mode, net, ...rest] = url.pathname.split('/');
    if (mode !== 'ok') return FAILING[mode as Exclude<Mode, 'ok'>];
    if (Buffer.byteLength(request.body) > KOIOS_PUBLIC_BODY_BYTES) return jsonAnswer({ message: 'request body above the public tier limit' }, 413);
    const endpoint = `/${rest.join('/')}${url.search}`;
    served.push({ request: `${request.method} ${endpoint}`, ...(request.body ? { body: JSON.parse(request.body) as Json } : {}) });
    return instances[net as 'testnet' | 'mainnet']({ ...request, path: endpoint });
  });
  t.teardown(() => server.close());
  return { served, url: (mode, net = 'testnet') => `${server.url}/${mode}/${net}` };
}

const adapter = adaChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, adaChain.definition);

function watcherFor(network: NetworkDefinition, endpoints: Omit<ProviderEndpoint, 'name'>[], outcomes: ProviderOutcome[] = []) {
  const providers = new ProviderPool({
    chain: 'ada',
    network: network.id,
    endpoints: endpoints.map((e, i) => ({ name: `p${i}`, ...e })),
    timeoutMs: 5_000,
    onOutcome: (o) => outcomes.push(o),
  });
  return adapter.createWatcher({ network, providers });
}
const koios = (url: string): Omit<ProviderEndpoint, 'name'> => ({ url, kind: 'koios' });

test('head() reads /tip: block_height, or block_no from Koios releases before 1.4', async (t) => {
  const server = await replay(t);
  t.deepEqual(await watcherFor(PREPROD, [koios(server.url('ok'))]).head(), { height: 3694253 });
  t.deepEqual(await watcherFor(MAINNET, [koios(server.url('ok', 'mainnet'))]).head(), { height: 6806994 });
  t.deepEqual(
    server.served.map((s) => s.request),
    ['GET /tip', 'GET /tip'],
  );
});

test('blockHash() asks /blocks?block_height=eq.N; null for a height the instance lacks', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(PREPROD, [koios(server.url('ok'))]);
  t.is(await watcher.blockHash(3338631), BLOCK);
  t.is(await watcher.blockHash(3693694), BELOW_EMPTY);
  t.is(await watcher.blockHash(99999999), null);
  t.is(server.served[0]!.request, 'GET /blocks?block_height=eq.3338631');
});

test('scan reads a block in three requests and reports lovelace to watched addresses, with outputIndex, block and payer', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(PREPROD, [koios(server.url('ok'))]);
  const watched = watchedSet([ADDR.payScript, ADDR.plutusPayee]);

  const [block, ...more] = await watcher.scan(3338631, 3338631, watched);

  t.is(more.length, 0);
  t.is(block!.height, 3338631);
  t.is(block!.hash, BLOCK);
  t.is(block!.parentHash, PARENT);
  t.deepEqual(block!.time, BLOCK_TIME);
  const common = { chain: 'ada', network: 'preprod', coin: 'ada', blockHeight: 3338631, blockHash: BLOCK, observedAt: BLOCK_TIME } as const;
  t.deepEqual(block!.transfers, [
    // Both outputs also hold a native asset: only their lovelace counts.
    { ...common, txHash: PAY, outputIndex: 0, toAddress: ADDR.payScript, fromAddress: ADDR.payer, amountUnits: 4000000n },
    // The payer is the first input in the ledger's order (by transaction hash), a wallet, not the script.
    { ...common, txHash: PLUTUS, outputIndex: 1, toAddress: ADDR.plutusPayee, fromAddress: ADDR.plutusWallet, amountUnits: 2000000n },
  ]);
  t.deepEqual(block!.spends, []);
  // One filter call with every input and output address of the scan.
  t.is(watched.calls.length, 1);
  t.deepEqual([...watched.calls[0]!].sort(), Object.values(ADDR).sort());
  t.deepEqual(
    server.served.map((s) => s.request),
    [
      'GET /blocks?block_height=gte.3338631&block_height=lte.3338631&order=block_height.asc',
      'POST /block_txs?order=block_hash.asc,tx_hash.asc&offset=0&limit=1000',
      'POST /tx_info',
    ],
  );
  t.deepEqual(server.served[1]!.body, { _block_hashes: [BLOCK] });
  t.deepEqual(server.served[2]!.body, { _tx_hashes: [PAY, PLUTUS], _inputs: true, _scripts: true });
});

test('spends: a valid transaction reports its regular inputs at watched addresses, never its collateral', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(PREPROD, [koios(server.url('ok'))]);

  // The Plutus transaction spends two outputs at the script address and pays it again.
  const [atScript] = await watcher.scan(3338631, 3338631, watchedSet([ADDR.plutusScript]));
  t.deepEqual(atScript!.spends, [
    { txHash: '75d9ad48f5e32972590d14e80359782ef97ab7ec6a6e4af74f8108c1ff7e7a33', outputIndex: 0, spentBy: PLUTUS },
    { txHash: '949961f8f03d9a008b8a37777d1443b1aad8f9bf4975f30b2b551572669d2a0b', outputIndex: 0, spentBy: PLUTUS },
  ]);
  t.deepEqual(
    atScript!.transfers.map((x) => [x.txHash, x.outputIndex, x.amountUnits]),
    [[PLUTUS, 0, 16360683018n]],
  );

  // The collateral sits at the wallet that also spends a regular input: only the regular one is spent.
  const [atWallet] = await watcher.scan(3338631, 3338631, watchedSet([ADDR.plutusWallet]));
  t.deepEqual(atWallet!.spends, [{ txHash: '41c61ee75d1fa96d4536bff95db8c4996754071d1ffe188323873d483817cc28', outputIndex: 2, spentBy: PLUTUS }]);
});

/**
 * The Plutus transaction as db-sync records one whose scripts failed (fixtures/koios/README.md):
 * its inputs are the collateral it consumed and it has no output (no collateral return before
 * Babbage). `declared`: with Koios's `valid_contract: false` (Koios after 1.4.2) or without it.
 */
function failedPlutus(declared: boolean): KoiosRows {
  const net = testnet();
  const row = net.txInfo.find((r) => r['tx_hash'] === PLUTUS)!;
  row['inputs'] = clone(row['collateral_inputs']);
  row['outputs'] = [];
  if (declared) row['valid_contract'] = false;
  return net;
}

for (const declared of [true, false]) {
  test(`a transaction whose scripts failed pays nobody and spends its collateral (${declared ? 'valid_contract false' : 'read by db-sync’s rule'})`, async (t) => {
    const server = await replay(t, { testnet: failedPlutus(declared) });
    const watcher = watcherFor(PREPROD, [koios(server.url('ok'))]);

    const [block] = await watcher.scan(3338631, 3338631, watchedSet([ADDR.plutusWallet, ADDR.plutusPayee, ADDR.plutusScript]));

    t.deepEqual(block!.transfers, []);
    t.deepEqual(block!.spends, [COLLATERAL]);
  });
}

test('v1 recording: collateral return and reference inputs never count; a failed transaction keeps only its collateral return', (t) => {
  const [plutus, plain] = rows('mainnet/tx_info.json');
  const parsed = parseKoiosTx(plutus, 'tx_info');
  t.true(parsed.valid, 'no valid_contract (recorded before Koios added it): outputs beside the collateral return mean it passed');
  t.is(parsed.blockHeight, 9065861);
  t.deepEqual(
    parsed.moves.outputs.map((o) => [o.outputIndex, o.lovelace]),
    [
      [0, 589778378n],
      [1, 294889189n],
      [2, 147444595n],
      [3, 147162030n],
    ],
  );
  // Two regular inputs, in the ledger's order; the reference input (9a32459b…#0) and the collateral are not consumed.
  t.deepEqual(
    parsed.moves.inputs.map((i) => [i.txHash.slice(0, 8), i.outputIndex, i.collateral]),
    [
      ['19684bf4', 0, false],
      ['19684bf4', 1, false],
    ],
  );
  t.is(parsed.moves.fromAddress, parsed.moves.inputs[0]!.address);

  // As db-sync records the same transaction had its scripts failed: collateral in, collateral return out.
  const failed = { ...clone(plutus!), inputs: clone(plutus!['collateral_inputs']), outputs: [clone(plutus!['collateral_output'])] };
  const asFailed = parseKoiosTx(failed, 'tx_info');
  t.false(asFailed.valid);
  t.deepEqual(asFailed.moves.outputs, [], 'a collateral return is never a payment');
  t.deepEqual(
    asFailed.moves.inputs.map((i) => [i.txHash.slice(0, 8), i.outputIndex, i.collateral]),
    [['3f31f56a', 0, true]],
  );
  t.false(parseKoiosTx({ ...failed, valid_contract: false }, 'tx_info').valid);
  // `valid_contract` where Koios gives it decides.
  t.true(parseKoiosTx({ ...clone(plain!), valid_contract: true }, 'tx_info').valid);
  t.deepEqual(parseKoiosTx(plain, 'tx_info').moves.outputs.length, 5);
});

test('consecutive blocks come back ascending and chained from one request, empty blocks without transaction reads', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(PREPROD, [koios(server.url('ok'))]);
  t.is(watcher.maxBlocksPerScan, 10);
  const watched = watchedSet([ADDR.payer]);

  const blocks = await watcher.scan(EMPTY_FROM, EMPTY_FROM + 9, watched);

  t.deepEqual(
    blocks.map((b) => b.height),
    Array.from({ length: 10 }, (_, i) => EMPTY_FROM + i),
  );
  t.is(blocks[0]!.parentHash, BELOW_EMPTY);
  for (let i = 1; i < blocks.length; i++) t.is(blocks[i]!.parentHash, blocks[i - 1]!.hash);
  t.true(blocks.every((b) => b.transfers.length === 0 && b.spends!.length === 0));
  t.deepEqual(
    server.served.map((s) => s.request),
    [`GET /blocks?block_height=gte.${EMPTY_FROM}&block_height=lte.${EMPTY_FROM + 9}&order=block_height.asc`],
  );
  t.is(watched.calls.length, 0);
  await t.throwsAsync(watcher.scan(EMPTY_FROM, EMPTY_FROM + 10, watched), { instanceOf: RangeError });
});

test('tx_info batches stay within Koios’s body limit: 14 hashes on the public tier, 73 with a bearer token', (t) => {
  const hashes = Array.from({ length: 100 }, (_, i) => i.toString(16).padStart(64, '0'));
  const publicBatches = batchesWithin(hashes, txInfoBody, KOIOS_PUBLIC_BODY_BYTES);
  t.deepEqual(
    publicBatches.map((b) => b.length),
    [14, 14, 14, 14, 14, 14, 14, 2],
  );
  t.true(publicBatches.every((b) => Buffer.byteLength(JSON.stringify(txInfoBody(b))) <= KOIOS_PUBLIC_BODY_BYTES));
  t.deepEqual(publicBatches.flat(), hashes);
  t.deepEqual(
    batchesWithin(hashes, txInfoBody, KOIOS_REGISTERED_BODY_BYTES).map((b) => b.length),
    [73, 27],
  );
  t.is(koiosBodyLimit({ name: 'k', url: 'https://api.koios.rest/api/v1', kind: 'koios' }), KOIOS_PUBLIC_BODY_BYTES);
  t.is(koiosBodyLimit({ name: 'k', url: 'https://api.koios.rest/api/v1', kind: 'koios', headers: { Authorization: 'Bearer x' } }), KOIOS_REGISTERED_BODY_BYTES);
});

/** Variants of the recording that a broken or moving provider could send; each is a malformed answer. */
const MALFORMED: [string, (net: KoiosRows) => void][] = [
  ['a block without parent_hash', (net) => delete net.blocks.find((r) => r['hash'] === BLOCK)!['parent_hash']],
  ['block_txs listing fewer transactions than tx_count (the instance lost the block)', (net) => net.blockTxs.pop()],
  ['a transaction of another block', (net) => (net.txInfo[0]!['block_hash'] = PARENT)],
  ['a transaction missing from tx_info', (net) => net.txInfo.pop()],
  ['an output value that is not a lovelace string', (net) => ((net.txInfo[0]!['outputs'] as Row[])[0]!['value'] = 4000000)],
  ['an output of another transaction', (net) => ((net.txInfo[0]!['outputs'] as Row[])[0]!['tx_hash'] = PLUTUS)],
  [
    'a Shelley address that does not decode',
    (net) => ((net.txInfo[0]!['outputs'] as Row[])[0]!['payment_addr'] = { bech32: `${ADDR.payScript.slice(0, -1)}q` }),
  ],
];

for (const [name, spoil] of MALFORMED) {
  test(`malformed: ${name} → the next provider's answer is used`, async (t) => {
    const broken = testnet();
    spoil(broken);
    const bad = await replay(t, { testnet: broken });
    const good = await replay(t);
    const outcomes: ProviderOutcome[] = [];
    const watcher = watcherFor(PREPROD, [koios(bad.url('ok')), koios(good.url('ok'))], outcomes);

    const [block] = await watcher.scan(3338631, 3338631, watchedSet([ADDR.payScript]));

    t.deepEqual(
      block!.transfers.map((x) => [x.txHash, x.outputIndex]),
      [[PAY, 0]],
    );
    t.deepEqual(
      outcomes.map((o) => [o.provider, o.outcome]),
      [
        ['p0', 'malformed'],
        ['p1', 'ok'],
      ],
    );
  });
}

test('an instance behind the range is passed over for one that has it', async (t) => {
  const behind = testnet();
  behind.blocks = behind.blocks.filter((r) => (r['block_height'] as number) < EMPTY_FROM + 5);
  const bad = await replay(t, { testnet: behind });
  const good = await replay(t);
  const outcomes: ProviderOutcome[] = [];
  const blocks = await watcherFor(PREPROD, [koios(bad.url('ok')), koios(good.url('ok'))], outcomes).scan(EMPTY_FROM, EMPTY_FROM + 9, watchedSet([]));
  t.is(blocks.length, 10);
  t.is(outcomes[0]!.outcome, 'malformed');
  t.regex(outcomes[0]!.error!, /answered heights 3693695,3693696,3693697,3693698,3693699 \(the instance is behind\?\)/);
});

const FAILURES: [Mode, ProviderError['failure']][] = [
  ['e500', 'http_error'],
  ['e429', 'rate_limited'],
  ['garbage', 'malformed'],
  ['shape', 'malformed'],
];

for (const [mode, failure] of FAILURES) {
  test(`failover: first Koios instance ${mode} → the second one answers`, async (t) => {
    const server = await replay(t);
    const outcomes: ProviderOutcome[] = [];
    const watcher = watcherFor(PREPROD, [koios(server.url(mode)), koios(server.url('ok'))], outcomes);
    t.deepEqual(await watcher.head(), { height: 3694253 });
    t.deepEqual(
      outcomes.map((o) => [o.provider, o.outcome]),
      [
        ['p0', failure],
        ['p1', 'ok'],
      ],
    );
  });
}

test('a 429 passes its Retry-After on when every Koios instance is rate limited', async (t) => {
  const server = await replay(t);
  const error = await t.throwsAsync(watcherFor(PREPROD, [koios(server.url('e429'))]).blockHash(3338631), { instanceOf: ProviderError });
  t.is(error!.failure, 'rate_limited');
  t.is(error!.retryAfterMs, 60_000);
});

test('a provider kind the watcher does not read stops it, naming the provider', (t) => {
  t.throws(() => watcherFor(PREPROD, [{ url: 'http://127.0.0.1:1', kind: 'ogmios' }]), {
    message: 'ada provider p0: kind ogmios is not one of blockfrost, koios',
  });
  t.deepEqual(watcherFor(PREPROD, [{ url: 'http://127.0.0.1:1' }]).providerKinds, ['blockfrost', 'koios']);
  t.is(
    watcherFor(PREPROD, [{ url: 'http://127.0.0.1:1' }, koios('http://127.0.0.1:2')]).maxBlocksPerScan,
    5,
    'a Blockfrost provider in the list keeps its shorter scans',
  );
});

// Blockfrost's recordings of testnet block 3152805 and its Plutus transaction 4d5beb45… (fixtures/README.md).
const BF_BLOCK = '9b4f18889ea91b644462ea50d733a372313222d71ecc60d18c2d7f3f5db1f2de';
const BF_TX = '4d5beb45fe37b44b46f839811a3d3a1ac4a20911850740867a64f77d09372d0b';
const BF_PAID = 'addr_test1wpfzvzpa046hkfy65mp4ez6vgjunmytzg0ye0ds7mm26v0g77pj9h';

/**
 * BUILT, not recorded: the Koios `tx_info` row of 4d5beb45…, made from Blockfrost's recordings of
 * the same transaction (`/txs/{hash}` and `/txs/{hash}/utxos`) in Koios's shape, as a Koios
 * instance would describe it. No Koios recording of a transaction that Blockfrost was recorded for
 * was found.
 */
function koiosRowOfBlockfrostTx(validContract?: boolean): Row {
  const tx = JSON.parse(fixture('testnet/tx-4d5beb45.json')) as Json;
  const utxos = JSON.parse(fixture('testnet/tx-4d5beb45-utxos.json')) as { inputs: Json[]; outputs: Json[] };
  const lovelace = (amount: unknown) => (amount as { unit: string; quantity: string }[]).find((a) => a.unit === 'lovelace')?.quantity ?? '0';
  const utxo = (entry: Json, txHash: unknown, index: unknown) => ({
    payment_addr: { bech32: entry['address'] },
    tx_hash: txHash,
    tx_index: index,
    value: lovelace(entry['amount']),
  });
  return {
    tx_hash: BF_TX,
    block_hash: tx['block'],
    block_height: tx['block_height'],
    tx_block_index: tx['index'],
    inputs: utxos.inputs.filter((i) => i['collateral'] !== true).map((i) => utxo(i, i['tx_hash'], i['output_index'])),
    outputs: utxos.outputs.map((o) => utxo(o, BF_TX, o['output_index'])),
    collateral_inputs: utxos.inputs.filter((i) => i['collateral'] === true).map((i) => utxo(i, i['tx_hash'], i['output_index'])),
    collateral_output: null,
    ...(validContract === undefined ? {} : { valid_contract: validContract }),
  };
}

/**
 * One server speaking both APIs: Blockfrost's recorded answers for block 3152805 under `/bf`, except
 * `GET /txs/{hash}` (validity), which answers 500; Koios's `tx_info` under `/koios`, from
 * `koiosRowOfBlockfrostTx`; `/tip` from the recorded testnet tip; everything else under `/koios` 500.
 */
async function mixed(t: ExecutionContext, koiosRow: Row): Promise<{ url: (api: 'bf' | 'koios') => string; served: string[] }> {
  const served: string[] = [];
  const blockfrost: Record<string, string> = {
    '/blocks/latest': fixture('testnet/block-3152805.json'),
    '/blocks/3152805': fixture('testnet/block-3152805.json'),
    [`/blocks/${BF_BLOCK}/txs?page=1&count=100`]: fixture('testnet/block-3152805-txs-page1.json'),
    [`/txs/${BF_TX}/utxos`]: fixture('testnet/tx-4d5beb45-utxos.json'),
  };
  const server = await startReplayServer('', ({ method, path: full, body }) => {
    const [, api, ...rest] = full.split('/');
    const path = `/${rest.join('/')}`;
    served.push(`${api} ${method} ${path}`);
    if (api === 'bf') return blockfrost[path] === undefined ? jsonAnswer(fixture('error-500.json'), 500) : jsonAnswer(blockfrost[path]!);
    if (path === '/tip') return jsonAnswer(fixture('koios/testnet/tip.json'));
    if (path === '/tx_info') return jsonAnswer(((JSON.parse(body) as Json)['_tx_hashes'] as string[]).includes(BF_TX) ? [koiosRow] : []);
    return jsonAnswer('{"message":"not replayed"}', 500);
  });
  t.teardown(() => server.close());
  return { served, url: (api) => `${server.url}/${api}` };
}

test('one pool of both kinds: each call is asked in the API of the provider that answers it', async (t) => {
  const server = await mixed(t, koiosRowOfBlockfrostTx());
  const outcomes: ProviderOutcome[] = [];
  const watcher = watcherFor(PREPROD, [{ url: server.url('bf') }, koios(server.url('koios'))], outcomes);

  // The Blockfrost provider reads the block; its validity lookup fails (500) and the Koios instance answers it.
  const [block] = await watcher.scan(3152805, 3152805, watchedSet([BF_PAID]));

  t.deepEqual(
    block!.transfers.map((x) => [x.txHash, x.outputIndex, x.toAddress, x.amountUnits]),
    [[BF_TX, 1, BF_PAID, 3729086n]],
  );
  t.deepEqual(
    outcomes.map((o) => [o.operation, o.provider, o.outcome]),
    [
      ['scan_block', 'p0', 'ok'],
      ['tx_validity', 'p0', 'http_error'],
      ['tx_validity', 'p1', 'ok'],
    ],
  );
  t.true(server.served.includes('koios POST /tx_info'));
  // The Koios instance now answers first: the tip in its own API.
  t.deepEqual(await watcher.head(), { height: 3694253 });
  t.is(server.served.at(-1), 'koios GET /tip');
});

test('one pool of both kinds: a Koios instance saying the scripts failed drops the transfer', async (t) => {
  const server = await mixed(t, koiosRowOfBlockfrostTx(false));
  const [block] = await watcherFor(PREPROD, [{ url: server.url('bf') }, koios(server.url('koios'))]).scan(3152805, 3152805, watchedSet([BF_PAID]));
  t.deepEqual(block!.transfers, []);
});
