/**
 * AdaWatcher against a local HTTP server that REPLAYS RECORDED REAL Blockfrost responses
 * (chains/ada/test/fixtures; the README there names each block/transaction and where the
 * recording comes from). Failure modes (500, 429, a hanging provider, a non-JSON or wrongly shaped
 * body) are served by the same server under other path prefixes to exercise the pool's failover.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { watchedSet } from '@gw/chain-api/testing';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { ProviderError, ProviderPool, type ChainAdapterDeps, type NetworkDefinition, type ProviderOutcome } from '@gw/chain-api';
import { adaChain, deriveAdaAddress, normaliseAdaAddress, parseAdaAccountKey } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../test/fixtures/${name}`, import.meta.url), 'utf8');

const PREPROD = adaChain.definition.networks.testnets[0];
const MAINNET = adaChain.definition.networks.mainnet;

// Testnet block 3152805 and its Plutus transaction 4d5beb45… (see fixtures/README.md).
const BLOCK = '9b4f18889ea91b644462ea50d733a372313222d71ecc60d18c2d7f3f5db1f2de';
const PARENT = '426440d04d9591508760e4c4602701d960c91536c61e1b769d4c38dd4e4c07db';
const TX = '4d5beb45fe37b44b46f839811a3d3a1ac4a20911850740867a64f77d09372d0b';
const BLOCK_TIME = new Date(1639491936 * 1000);
const OUT = {
  script0: 'addr_test1wp9m8xkpt2tmy7madqldspgzgug8f2p3pwhz589cq75685slenwf4',
  script1: 'addr_test1wpfzvzpa046hkfy65mp4ez6vgjunmytzg0ye0ds7mm26v0g77pj9h',
  base2: 'addr_test1qpfvzlfra5lfnmnj85fk5zr5p7cf3vlhkqe8tue8632fcllw96vr28q0wdcmwp6djuhpdu5zzns8290jul9mcuu2uv2sw9f9ns',
  base3: 'addr_test1qrrr6qhy6qaxwdkdx2g5fneg6suz72uy294pf57qlhkym6rjtttjuq8reajre6rmtyp9hsm3qc8sma8p4rs9ajc7rruspdc5yu',
  base4: 'addr_test1qqmfw4wcu6updqj28jeshzsd9f2y34gf7zvqv5usu4pkd2cx8t305xhve0caejq5vm6fxaztzpeyjnp5ch5sxxz93l9qrnq7z9',
};
/** The script address of the recorded transaction's inputs 2 and 3, to which it pays nothing. */
const SPENT_SCRIPT = 'addr_test1wrsexavz37208qda7mwwu4k7hcpg26cz0ce86f5e9kul3hqzlh22t';
/** The recorded transaction's inputs (fixtures/README.md): 0 at script0, 1 at base4, 2 and 3 at SPENT_SCRIPT, 4 a collateral at base4. */
const IN = {
  script0: { txHash: '11a3596a8d7ba851481742ed6eb3a85e12b9ac73dc5bb5b6acccbb4646831969', outputIndex: 0, spentBy: TX },
  base4: { txHash: '50604b49d5c725ecea0a4907df191c4a0fc9013b41bdeded7bc818eb2a29be21', outputIndex: 3, spentBy: TX },
  script2: { txHash: 'e974d5d36b8f9f22e72567a2a5274918bf64ae214945ac718d4b4ce0a46e64f6', outputIndex: 0, spentBy: TX },
  script3: { txHash: 'f8c9f0729daff1884ec3b3257dd8719f4999f0e96571b45eaafb0e11fa8502ca', outputIndex: 0, spentBy: TX },
  collateral: { txHash: '05fa9e865a808986cfd1f9eb52d804c1e3a7d85283b5c3e502f3c9ca6aeab682', outputIndex: 5, spentBy: TX },
};

const ROUTES: Record<string, Record<string, string>> = {
  testnet: {
    '/blocks/latest': fixture('testnet/block-3152805.json'),
    '/blocks/3152805': fixture('testnet/block-3152805.json'),
    [`/blocks/${BLOCK}/txs?page=1&count=100`]: fixture('testnet/block-3152805-txs-page1.json'),
    [`/txs/${TX}`]: fixture('testnet/tx-4d5beb45.json'),
    [`/txs/${TX}/utxos`]: fixture('testnet/tx-4d5beb45-utxos.json'),
  },
  mainnet: Object.fromEntries([5058583, 5058584, 5058585, 5058586].map((h) => [`/blocks/${h}`, fixture(`mainnet/block-${h}.json`)])),
};

type Mode = 'ok' | 'e500' | 'e429' | 'hang' | 'garbage' | 'shape';

interface Replay {
  /** `mode/net` prefix → endpoint URL. */
  url(mode: Mode, net: 'testnet' | 'mainnet'): string;
  /** Requests served in ok mode, as `net path`. */
  readonly served: string[];
}

/**
 * Starts the replay server for one test. `overrides` replaces a recorded body (same `net path` key
 * as `served`) for tests that need a variant of a recording.
 */
async function replay(t: ExecutionContext, overrides: Record<string, string> = {}): Promise<Replay> {
  const served: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const [, mode, net, ...rest] = (req.url ?? '').split('/');
    const path = `/${rest.join('/')}`;
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    };
    if (req.headers['project_id'] !== 'test-project') return send(403, '{"error":"Forbidden","message":"Invalid project token.","status_code":403}');
    switch (mode as Mode) {
      case 'e500':
        return send(500, fixture('error-500.json'));
      case 'e429':
        return send(429, '{"error":"Too Many Requests","status_code":429}', { 'retry-after': '2' });
      case 'hang':
        return void setTimeout(() => send(200, ROUTES['testnet']!['/blocks/latest']!), 3000).unref();
      case 'garbage':
        return send(200, '<html>502 Bad Gateway</html>');
      case 'shape':
        return send(200, '{"height":"3152805","hash":null}');
      default: {
        const key = `${net} ${path}`;
        served.push(key);
        const body = overrides[key] ?? ROUTES[net ?? '']?.[path];
        return body === undefined ? send(404, fixture('error-404.json')) : send(200, body);
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { served, url: (mode, net) => `http://127.0.0.1:${port}/${mode}/${net}` };
}

const adapter = adaChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, adaChain.definition);

function watcherFor(network: NetworkDefinition, urls: string[], outcomes: ProviderOutcome[] = [], timeoutMs = 5_000) {
  const providers = new ProviderPool({
    chain: 'ada',
    network: network.id,
    endpoints: urls.map((url, i) => ({ name: `p${i}`, url, headers: { project_id: 'test-project' } })),
    timeoutMs,
    onOutcome: (o) => outcomes.push(o),
  });
  return adapter.createWatcher({ network, providers });
}

const watching = watchedSet;

// "abandon … about" account key (the published CIP-1852 vector used in ada.test.ts).
const ACCOUNT = parseAdaAccountKey(
  Buffer.from(
    CSL.Bip32PrivateKey.from_bip39_entropy(new Uint8Array(16), new Uint8Array(0))
      .derive(0x80000000 + 1852)
      .derive(0x80000000 + 1815)
      .derive(0x80000000)
      .to_public()
      .as_bytes(),
  ).toString('hex'),
);

test('scan reports the lovelace of outputs to watched addresses, with outputIndex, block and payer', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(PREPROD, [server.url('ok', 'testnet')]);
  const unrelated = deriveAdaAddress(ACCOUNT, 'testnet', 7).address;
  const watched = watching([OUT.script1, OUT.base2, unrelated]);

  const blocks = await watcher.scan(3152805, 3152805, watched);

  t.is(blocks.length, 1);
  const [block] = blocks;
  t.is(block!.height, 3152805);
  t.is(block!.hash, BLOCK);
  t.is(block!.parentHash, PARENT);
  t.deepEqual(block!.time, BLOCK_TIME);
  const common = {
    chain: 'ada',
    network: 'preprod',
    coin: 'ada',
    txHash: TX,
    fromAddress: OUT.script0,
    blockHeight: 3152805,
    blockHash: BLOCK,
    observedAt: BLOCK_TIME,
  } as const;
  t.deepEqual(block!.transfers, [
    { ...common, outputIndex: 1, toAddress: OUT.script1, amountUnits: 3729086n },
    // The output also holds 10,000,000 of a native asset: only its 2 ada count.
    { ...common, outputIndex: 2, toAddress: OUT.base2, amountUnits: 2000000n },
  ]);
  t.deepEqual(block!.spends, [], 'none of its inputs is at a watched address');
  // One filter call with every input and output address of the scan.
  t.is(watched.calls.length, 1);
  t.deepEqual([...watched.calls[0]!].sort(), [...Object.values(OUT), SPENT_SCRIPT].sort());
  t.true(server.served.includes(`testnet /blocks/${BLOCK}/txs?page=1&count=100`));
  t.true(server.served.includes(`testnet /txs/${TX}`), 'validity checked for the paying transaction');
});

test('unwatched outputs are filtered out and cost no validity lookup', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(PREPROD, [server.url('ok', 'testnet')]);
  const watched = watching([deriveAdaAddress(ACCOUNT, 'testnet', 0).address]);

  const [block] = await watcher.scan(3152805, 3152805, watched);

  t.is(block!.hash, BLOCK);
  t.deepEqual(block!.transfers, []);
  t.is(watched.calls.length, 1);
  t.false(server.served.includes(`testnet /txs/${TX}`));
});

test('a transaction whose scripts failed (valid_contract false) is skipped', async (t) => {
  // No recording of a phase-2-failed transaction was found: this is the real /txs recording with
  // only valid_contract flipped, as Blockfrost reports such a transaction (see fixtures/README.md).
  const failed = JSON.stringify({ ...JSON.parse(fixture('testnet/tx-4d5beb45.json')), valid_contract: false });
  const server = await replay(t, { [`testnet /txs/${TX}`]: failed });
  const watcher = watcherFor(PREPROD, [server.url('ok', 'testnet')]);

  const [block] = await watcher.scan(3152805, 3152805, watching([OUT.script1, OUT.base2]));

  t.is(block!.hash, BLOCK);
  t.deepEqual(block!.transfers, []);
  t.true(server.served.includes(`testnet /txs/${TX}`));
});

test('collateral inputs are never the payer and collateral-return outputs are never payments', async (t) => {
  // Variant of the real utxos recording: its first input marked collateral, output 2 marked as a
  // collateral return (the shape Blockfrost gives them), to pin both rules.
  const utxos = JSON.parse(fixture('testnet/tx-4d5beb45-utxos.json')) as {
    inputs: { collateral: boolean }[];
    outputs: { output_index: number; collateral?: boolean }[];
  };
  utxos.inputs[0]!.collateral = true;
  utxos.outputs.find((o) => o.output_index === 2)!.collateral = true;
  const server = await replay(t, { [`testnet /txs/${TX}/utxos`]: JSON.stringify(utxos) });
  const watcher = watcherFor(PREPROD, [server.url('ok', 'testnet')]);

  const [block] = await watcher.scan(3152805, 3152805, watching([OUT.script1, OUT.base2]));

  t.deepEqual(
    block!.transfers.map((x) => [x.outputIndex, x.toAddress, x.fromAddress]),
    [[1, OUT.script1, OUT.base4]],
  );
});

test('spends: a valid transaction spending from a watched address reports its regular inputs there, never its collateral', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(PREPROD, [server.url('ok', 'testnet')]);

  // It pays SPENT_SCRIPT nothing: read for its inputs alone, its validity asked (it has collateral).
  const [spender] = await watcher.scan(3152805, 3152805, watching([SPENT_SCRIPT]));
  t.deepEqual(spender!.transfers, []);
  t.deepEqual(spender!.spends, [IN.script2, IN.script3]);
  t.true(server.served.includes(`testnet /txs/${TX}`));

  // base4 holds a regular input, the collateral and output 4.
  const [both] = await watcher.scan(3152805, 3152805, watching([OUT.base4]));
  t.deepEqual(both!.spends, [IN.base4]);
  t.deepEqual(
    both!.transfers.map((x) => [x.outputIndex, x.toAddress]),
    [[4, OUT.base4]],
  );
});

test('spends: a failed transaction (valid_contract false) consumed its collateral, not its inputs', async (t) => {
  const failed = JSON.stringify({ ...JSON.parse(fixture('testnet/tx-4d5beb45.json')), valid_contract: false });
  const server = await replay(t, { [`testnet /txs/${TX}`]: failed });
  const watcher = watcherFor(PREPROD, [server.url('ok', 'testnet')]);

  const [block] = await watcher.scan(3152805, 3152805, watching([OUT.base4, SPENT_SCRIPT]));

  t.deepEqual(block!.spends, [IN.collateral]);
  t.deepEqual(block!.transfers, []);
});

test('spends: a transaction without collateral needs no validity lookup; reference inputs are never spent', async (t) => {
  // Variant of the real utxos recording: the collateral input removed (no Plutus script can fail),
  // input 2 marked a reference input (CIP-31: read, not consumed).
  const utxos = JSON.parse(fixture('testnet/tx-4d5beb45-utxos.json')) as { inputs: { collateral: boolean; reference?: boolean }[] };
  utxos.inputs = utxos.inputs.filter((input) => !input.collateral);
  utxos.inputs[2]!.reference = true;
  const server = await replay(t, { [`testnet /txs/${TX}/utxos`]: JSON.stringify(utxos) });
  const watcher = watcherFor(PREPROD, [server.url('ok', 'testnet')]);

  const [block] = await watcher.scan(3152805, 3152805, watching([SPENT_SCRIPT, OUT.script0]));

  t.deepEqual(block!.spends, [IN.script0, IN.script3]);
  t.deepEqual(
    block!.transfers.map((x) => x.outputIndex),
    [0],
  );
  // Validity is still asked once: the transaction pays script0.
  t.is(server.served.filter((p) => p === `testnet /txs/${TX}`).length, 1);

  const [spendOnly] = await watcherFor(PREPROD, [server.url('ok', 'testnet')]).scan(3152805, 3152805, watching([SPENT_SCRIPT]));
  t.deepEqual(spendOnly!.spends, [IN.script3]);
  t.is(server.served.filter((p) => p === `testnet /txs/${TX}`).length, 1, 'no lookup for a spend-only transaction without collateral');
});

test('consecutive blocks come back ascending and chained, empty blocks without transaction reads', async (t) => {
  const server = await replay(t);
  const watcher = watcherFor(MAINNET, [server.url('ok', 'mainnet')]);
  const watched = watching([deriveAdaAddress(ACCOUNT, 'mainnet', 0).address]);

  const blocks = await watcher.scan(5058583, 5058586, watched);

  t.deepEqual(
    blocks.map((b) => b.height),
    [5058583, 5058584, 5058585, 5058586],
  );
  t.is(blocks[0]!.parentHash, '62ee753ce9474cf8aae72376c18b63f5d6bcbea63795dfba948a6b59575e3d02');
  for (let i = 1; i < blocks.length; i++) t.is(blocks[i]!.parentHash, blocks[i - 1]!.hash);
  t.is(blocks[3]!.hash, 'd0c72a33311f4fca9f80deb34812fccf372ae6c72deb032e32ab64469f91a293');
  t.deepEqual(blocks[3]!.time, new Date(1607585685 * 1000));
  t.true(blocks.every((b) => b.transfers.length === 0 && b.spends!.length === 0));
  t.deepEqual(
    server.served,
    ['/blocks/5058583', '/blocks/5058584', '/blocks/5058585', '/blocks/5058586'].map((p) => `mainnet ${p}`),
  );
  t.is(watched.calls.length, 0);
  await t.throwsAsync(watcher.scan(5058583, 5058583 + watcher.maxBlocksPerScan, watched), { instanceOf: RangeError });
});

test('head() is the latest block height; Cardano declares no finality', async (t) => {
  const server = await replay(t);
  const head = await watcherFor(PREPROD, [server.url('ok', 'testnet')]).head();
  t.deepEqual(head, { height: 3152805 });
});

test('blockHash() answers the hash at a height, null for a height the provider lacks', async (t) => {
  const server = await replay(t);
  t.is(await watcherFor(PREPROD, [server.url('ok', 'testnet')]).blockHash(3152805), BLOCK);
  const mainnet = watcherFor(MAINNET, [server.url('ok', 'mainnet')]);
  t.is(await mainnet.blockHash(5058584), '20cac196d04af68c387bd70ec8c078bcc03b9fbdb8f9c0bab4df2d15fe2b68ac');
  t.is(await mainnet.blockHash(99999999), null);
});

test('toAddress is the exact string deriveAddress produces', (t) => {
  for (const network of ['mainnet', 'testnet'] as const) {
    const key = adapter.parseAccountKey(ACCOUNT, network);
    for (const index of [0, 1, 4242]) {
      const derived = adapter.deriveAddress(key, index).address;
      t.is(normaliseAdaAddress(derived), derived);
      t.is(normaliseAdaAddress(derived.toUpperCase()), derived);
    }
  }
  // The recorded base addresses, rebuilt from their credentials the way derive.ts builds one,
  // give back Blockfrost's string byte for byte: the two forms are the same encoding.
  for (const address of [OUT.base2, OUT.base3, OUT.base4]) {
    const base = CSL.BaseAddress.from_address(CSL.Address.from_bech32(address))!;
    t.is(CSL.BaseAddress.new(0, base.payment_cred(), base.stake_cred()).to_address().to_bech32(), address);
    t.is(normaliseAdaAddress(address), address);
  }
  // Byron addresses are kept as given (never derived, so never watched).
  const byron = 'DdzFFzCqrhsje3fcewMBiE2cokJP8DQDsSeMM4UT6VXN7ZDiQk6rE4GwaxbsMgxaKqMj6S3cGRY7BrnKzmpe6uY7vLuroWZVxU5FiVfR';
  t.is(normaliseAdaAddress(byron), byron);
  t.throws(() => normaliseAdaAddress(`${OUT.base2.slice(0, -1)}q`));
});

test('a scan matches a watched derived address when the provider reports it', async (t) => {
  // The recorded output 4 pays OUT.base4; a derived pool address stands in for it in a variant of
  // the recording, proving the match is string equality on the derived form.
  const pool = deriveAdaAddress(ACCOUNT, 'testnet', 3).address;
  const utxos = JSON.parse(fixture('testnet/tx-4d5beb45-utxos.json')) as { outputs: { output_index: number; address: string }[] };
  utxos.outputs.find((o) => o.output_index === 4)!.address = pool;
  const server = await replay(t, { [`testnet /txs/${TX}/utxos`]: JSON.stringify(utxos) });

  const [block] = await watcherFor(PREPROD, [server.url('ok', 'testnet')]).scan(3152805, 3152805, watching([pool]));

  t.deepEqual(
    block!.transfers.map((x) => [x.outputIndex, x.toAddress, x.amountUnits]),
    [[4, pool, 2000000n]],
  );
});

const FAILURES: [Mode, ProviderError['failure']][] = [
  ['e500', 'http_error'],
  ['e429', 'rate_limited'],
  ['hang', 'timeout'],
  ['garbage', 'malformed'],
  ['shape', 'malformed'],
];

for (const [mode, failure] of FAILURES) {
  test(`failover: first provider ${mode} → the second provider's answer is used`, async (t) => {
    const server = await replay(t);
    const outcomes: ProviderOutcome[] = [];
    const watcher = watcherFor(PREPROD, [server.url(mode, 'testnet'), server.url('ok', 'testnet')], outcomes, mode === 'hang' ? 1_000 : 5_000);

    t.deepEqual(await watcher.head(), { height: 3152805 });
    t.deepEqual(
      outcomes.map((o) => [o.provider, o.outcome]),
      [
        ['p0', failure],
        ['p1', 'ok'],
      ],
    );
  });

  test(`all providers failing (${mode}) throws a ProviderError of kind ${failure}`, async (t) => {
    const server = await replay(t);
    const watcher = watcherFor(PREPROD, [server.url(mode, 'testnet'), server.url(mode, 'testnet')], [], mode === 'hang' ? 1_000 : 5_000);
    const error = await t.throwsAsync(watcher.head(), { instanceOf: ProviderError });
    t.is(error!.failure, failure);
    t.is(error!.provider, 'p1');
  });
}

test('failover during a scan: the block is read whole from the next provider', async (t) => {
  const server = await replay(t);
  const outcomes: ProviderOutcome[] = [];
  const watcher = watcherFor(PREPROD, [server.url('e500', 'testnet'), server.url('ok', 'testnet')], outcomes);

  const [block] = await watcher.scan(3152805, 3152805, watching([OUT.base2]));

  t.deepEqual(
    block!.transfers.map((x) => [x.outputIndex, x.amountUnits]),
    [[2, 2000000n]],
  );
  t.deepEqual(
    outcomes.map((o) => [o.operation, o.outcome]),
    [
      ['scan_block', 'http_error'],
      ['scan_block', 'ok'],
      ['tx_validity', 'ok'],
    ],
  );
});

test('a 429 passes its Retry-After on when every provider is rate limited', async (t) => {
  const server = await replay(t);
  const error = await t.throwsAsync(watcherFor(PREPROD, [server.url('e429', 'testnet')]).blockHash(3152805), { instanceOf: ProviderError });
  t.is(error!.failure, 'rate_limited');
  t.is(error!.retryAfterMs, 2000);
});
