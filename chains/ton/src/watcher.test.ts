/**
 * TonWatcher against a toncenter-v3-shaped server backed by @ton/sandbox (test/toncenter-sandbox.ts):
 * no recorded responses here; every transaction the server returns was executed by the real TON
 * emulator on real contract code: W5 wallets derived by the adapter (undeployed, as fresh pool
 * addresses are), the sandbox's treasury wallets, and real TEP-74 jetton minter/wallet code
 * (@ton-community/assets-sdk's compiled jetton-minter/jetton-wallet) for the genuine and an impostor
 * jetton. The failover cases put a misbehaving local server in front of it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { watchedSet } from '@gw/chain-api/testing';
import { Address, beginCell, toNano, type Cell } from '@ton/core';
import type { SandboxContract, TreasuryContract } from '@ton/sandbox';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter.js';
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet.js';
import { ProviderError, ProviderPool, type ChainAdapterDeps, type ProviderEndpoint, type ScannedBlock, type WatchedAddresses } from '@gw/chain-api';
import { ToncenterSandbox, blockJson, rawUpper, tonWithJetton, transactionJson, type SandboxBlock } from '../test/toncenter-sandbox.js';
import { TonWatcher, formatTonAddress, tonChain, tonDefinition } from './index.js';

const adapter = tonChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tonChain.definition);
const network = tonDefinition.networks.testnets[0];
const key = adapter.parseAccountKey('71ced1c4c69e53eb7ede24658375f56c142d22cdb21d0728138cb53b817e454e', 'testnet');
const pool0 = adapter.deriveAddress(key, 0).address;
const pool1 = adapter.deriveAddress(key, 1).address;
const unwatched = adapter.deriveAddress(key, 2).address;

const FIRST = 41_000_000;
const START = 1_750_000_000;

const comment = (text: string): Cell => beginCell().storeUint(0, 32).storeStringTail(text).endCell();

interface World {
  sandbox: ToncenterSandbox;
  payer: SandboxContract<TreasuryContract>;
  master: Address;
  impostor: Address;
  /** b1: TON payments; b2: bounced TON + genuine jetton; b3: impostor jetton, unwatched jetton, inline-comment jetton. */
  b1: SandboxBlock;
  b2: SandboxBlock;
  b3: SandboxBlock;
}

async function buildWorld(): Promise<World> {
  const sandbox = await ToncenterSandbox.create(FIRST, START);
  const bc = sandbox.blockchain;
  const payer = await bc.treasury('payer');
  const issuer = await bc.treasury('issuer');
  const fraud = await bc.treasury('fraud');
  const minter = bc.openContract(JettonMinter.createFromConfig({ admin: issuer.address, content: comment('usdt') }));
  const fake = bc.openContract(JettonMinter.createFromConfig({ admin: fraud.address, content: comment('usdt') }));
  await minter.sendDeploy(issuer.getSender(), toNano('1'));
  await fake.sendDeploy(fraud.getSender(), toNano('1'));
  await minter.sendMint(issuer.getSender(), payer.address, 100_000_000n, { value: toNano('0.2') });
  await fake.sendMint(fraud.getSender(), payer.address, 100_000_000_000n, { value: toNano('0.2') });
  const realWallet = bc.openContract(JettonWallet.createFromAddress(await minter.getWalletAddress(payer.address)));
  const fakeWallet = bc.openContract(JettonWallet.createFromAddress(await fake.getWalletAddress(payer.address)));
  const to = (friendly: string): Address => Address.parse(friendly);
  const jetton = (wallet: typeof realWallet, recipient: string, amount: bigint, memo: string) => () =>
    wallet.send(payer.getSender(), to(recipient), amount, { notify: { amount: 1n, payload: comment(memo) }, returnExcess: true, value: toNano('0.1') });

  const b1 = await sandbox.commit(
    () => payer.send({ to: to(pool0), value: toNano('1.5'), bounce: false, body: comment('inv-42') }),
    () => payer.send({ to: to(unwatched), value: toNano('0.7'), bounce: false, body: comment('inv-43') }),
  );
  const b2 = await sandbox.commit(
    () => payer.send({ to: to(pool1), value: toNano('2'), bounce: true, body: comment('inv-44') }),
    jetton(realWallet, pool1, 25_000_000n, 'usdt-7'),
  );
  // The standard jetton wallet copies the forward payload as sent: here inline (Either bit 0).
  const inline = beginCell()
    .storeUint(0x0f8a7ea5, 32)
    .storeUint(0, 64)
    .storeCoins(3_000_000n)
    .storeAddress(to(pool0))
    .storeAddress(payer.address)
    .storeBit(false)
    .storeCoins(1n)
    .storeBit(false)
    .storeUint(0, 32)
    .storeStringTail('inline-9')
    .endCell();
  const b3 = await sandbox.commit(jetton(fakeWallet, pool1, 999_000_000n, 'usdt-7'), jetton(realWallet, unwatched, 1_000_000n, 'usdt-8'), () =>
    payer.send({ to: realWallet.address, value: toNano('0.1'), bounce: true, body: inline }),
  );
  await sandbox.listen();
  return { sandbox, payer, master: minter.address, impostor: fake.address, b1, b2, b3 };
}

const worldPromise = buildWorld();
test.after.always(async () => (await worldPromise).sandbox.close());

/** A short timeout where a provider hangs (the test waits it out), a loaded machine's answer time elsewhere. */
const hangTimeout = (hangs: boolean) => (hangs ? 1_000 : 5_000);

function pool(endpoints: ProviderEndpoint[], timeoutMs = 2_000): ProviderPool {
  return new ProviderPool({ chain: 'ton', network: network.id, endpoints, timeoutMs });
}

const watching = watchedSet;

const txHash = (block: SandboxBlock, predicate: (json: Record<string, unknown>) => boolean): string => {
  const tx = block.transactions.find((t) => predicate(transactionJson(t, block.seqno)));
  if (!tx) throw new Error('transaction not in block');
  return tx.hash().toString('base64');
};
const inMsgTo = (address: string) => (json: Record<string, unknown>) =>
  (json['in_msg'] as { destination?: string } | null)?.destination === rawUpper(Address.parse(address));

async function scanAll(watcher: TonWatcher, watched: WatchedAddresses): Promise<ScannedBlock[]> {
  return watcher.scan(FIRST + 1, FIRST + 3, watched);
}

test('toncenter raw addresses become exactly the adapter-derived friendly form', async (t) => {
  const { b1 } = await worldPromise;
  const json = b1.transactions.map((tx) => transactionJson(tx, b1.seqno)).find(inMsgTo(pool0))!;
  const raw = (json['in_msg'] as { destination: string }).destination;
  t.regex(raw, /^0:[0-9A-F]{64}$/);
  t.is(formatTonAddress(Address.parseRaw(raw), 'testnet'), pool0);
  t.regex(pool0, /^0Q/);
});

test('scan: TON with memo to a fresh (undeployed) pool wallet, genuine jetton, nothing else', async (t) => {
  const { sandbox, payer, master, b1, b2, b3 } = await worldPromise;
  const watcher = new TonWatcher(tonWithJetton(master), {
    network,
    providers: pool([{ name: 'sandbox', url: sandbox.url, headers: { 'X-API-Key': 'k-123' } }]),
  });
  const watched = watching([pool0, pool1]);
  const blocks = await scanAll(watcher, watched);

  t.deepEqual(
    blocks.map((b) => b.height),
    [FIRST + 1, FIRST + 2, FIRST + 3],
  );
  t.is(blocks[0]!.parentHash, sandbox.block(FIRST)!.rootHash);
  t.is(blocks[1]!.parentHash, blocks[0]!.hash);
  t.is(blocks[2]!.parentHash, blocks[1]!.hash);
  t.deepEqual(
    blocks.map((b) => b.hash),
    [b1.rootHash, b2.rootHash, b3.rootHash],
  );
  t.is(blocks[0]!.time.getTime(), b1.genUtime * 1000);

  // The TON payment to the undeployed W5 wallet is aborted (no code) yet credited: it counts.
  const paid = b1.transactions.map((tx) => transactionJson(tx, b1.seqno)).find(inMsgTo(pool0))!;
  t.true((paid['description'] as { aborted: boolean }).aborted);
  t.is((await sandbox.blockchain.getContract(Address.parse(pool0))).balance, toNano('1.5'));

  const payerFriendly = formatTonAddress(payer.address, 'testnet');
  t.deepEqual(blocks[0]!.transfers, [
    {
      chain: 'ton',
      network: 'ton-testnet',
      coin: 'ton',
      txHash: txHash(b1, inMsgTo(pool0)),
      outputIndex: 0,
      toAddress: pool0,
      fromAddress: payerFriendly,
      amountUnits: 1_500_000_000n,
      blockHeight: FIRST + 1,
      blockHash: b1.rootHash,
      observedAt: new Date(b1.genUtime * 1000),
      memo: 'inv-42',
    },
  ]);
  // Block 2: the bounceable TON payment to the undeployed pool1 bounced back (ignored); the genuine jetton counts.
  const bounced = b2.transactions
    .map((tx) => transactionJson(tx, b2.seqno))
    .find((j) => inMsgTo(pool1)(j) && (j['in_msg'] as { value: string }).value === '2000000000')!;
  t.deepEqual((bounced['description'] as { bounce?: { type: string } }).bounce, { type: 'ok' });
  t.deepEqual(blocks[1]!.transfers, [
    {
      chain: 'ton',
      network: 'ton-testnet',
      coin: 'usdt_ton',
      txHash: txHash(b2, (j) => inMsgTo(pool1)(j) && (j['in_msg'] as { opcode: string }).opcode === '0x7362d09c'),
      outputIndex: 0,
      toAddress: pool1,
      fromAddress: payerFriendly,
      amountUnits: 25_000_000n,
      blockHeight: FIRST + 2,
      blockHash: b2.rootHash,
      observedAt: new Date(b2.genUtime * 1000),
      memo: 'usdt-7',
    },
  ]);
  // Block 3: impostor jetton to pool1 ignored, genuine jetton to an unwatched address filtered, inline-comment jetton to pool0 counted.
  t.deepEqual(
    blocks[2]!.transfers.map((x) => [x.coin, x.toAddress, x.amountUnits, x.memo]),
    [['usdt_ton', pool0, 3_000_000n, 'inline-9']],
  );

  // One filter call per scan, with every candidate address (watched or not).
  t.is(watched.calls.length, 1);
  t.true(watched.calls[0]!.includes(unwatched));
  t.true(watched.calls[0]!.includes(pool0) && watched.calls[0]!.includes(pool1));
  // Every call carried the endpoint's API key: 4 blocks (parent included), 3 transaction pages, 2 jetton-wallet look-ups.
  t.is(sandbox.requests.filter((r) => r.headers['x-api-key'] === 'k-123').length, 9);
});

test('jettons are ignored when the network has no configured master, or another one', async (t) => {
  const { sandbox, impostor } = await worldPromise;
  const providers = (): ProviderPool => pool([{ name: 'sandbox', url: sandbox.url }]);
  const watched = watching([pool0, pool1, unwatched]);
  // tonDefinition has no testnet USDT master.
  const plain = await new TonWatcher(tonDefinition, { network, providers: providers() }).scan(FIRST + 1, FIRST + 3, watched);
  t.deepEqual(
    plain.flatMap((b) => b.transfers.map((x) => x.coin)),
    ['ton', 'ton'],
  );
  // With the impostor configured, only the impostor's transfer is a jetton (the genuine ones are foreign).
  const swapped = await new TonWatcher(tonWithJetton(impostor), { network, providers: providers() }).scan(FIRST + 1, FIRST + 3, watched);
  t.deepEqual(
    swapped.flatMap((b) => b.transfers.filter((x) => x.coin === 'usdt_ton').map((x) => [x.toAddress, x.amountUnits])),
    [[pool1, 999_000_000n]],
  );
});

test('head, finalized and blockHash', async (t) => {
  const { sandbox, master, b2 } = await worldPromise;
  const watcher = new TonWatcher(tonWithJetton(master), { network, providers: pool([{ name: 'sandbox', url: sandbox.url }]) });
  t.deepEqual(await watcher.head(), { height: FIRST + 3, finalized: FIRST + 3 });
  t.is(await watcher.blockHash(FIRST + 2), b2.rootHash);
  t.is(await watcher.blockHash(FIRST + 99), null);
  t.true(watcher.maxBlocksPerScan > 0);
  await t.throwsAsync(watcher.scan(FIRST + 1, FIRST + 1 + watcher.maxBlocksPerScan, watching([])), { instanceOf: RangeError });
});

test('a block with more transactions than one page is read page by page', async (t) => {
  const { sandbox, b1 } = await worldPromise;
  const jsons = b1.transactions.map((tx) => transactionJson(tx, b1.seqno));
  const payment = jsons.find(inMsgTo(pool0))!;
  const other = jsons.find(inMsgTo(unwatched))!;
  const offsets: string[] = [];
  // Block FIRST+1 as 256 copies of the unwatched payment on page one and the pool0 payment on page two.
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.pathname === '/api/v3/blocks') return void res.end(JSON.stringify({ blocks: [blockJson(sandbox.block(Number(url.searchParams.get('seqno')))!)] }));
    offsets.push(`${url.searchParams.get('offset')}/${url.searchParams.get('limit')}`);
    const page = url.searchParams.get('offset') === '0' ? Array.from({ length: 256 }, () => other) : [payment];
    res.end(JSON.stringify({ transactions: page, address_book: {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const blocks = await new TonWatcher(tonDefinition, { network, providers: pool([{ name: 'paged', url }]) }).scan(FIRST + 1, FIRST + 1, watching([pool0]));
    t.deepEqual(offsets, ['0/256', '256/256']);
    t.deepEqual(
      blocks[0]!.transfers.map((x) => [x.toAddress, x.amountUnits]),
      [[pool0, 1_500_000_000n]],
    );
  } finally {
    await stop(server);
  }
});

/** A local server that fails in one way on every request. */
async function failing(mode: '500' | '429' | 'timeout' | 'malformed' | 'wrong-shape'): Promise<{ url: string; server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    if (mode === 'timeout') return; // never answers
    if (mode === '500') return void res.writeHead(500).end('internal error');
    if (mode === '429') return void res.writeHead(429, { 'retry-after': '3' }).end('slow down');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(mode === 'malformed' ? '{"transactions": [' : JSON.stringify({ last: { workchain: -1, seqno: 'x' }, blocks: 'none', transactions: {} }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits: () => hits };
}

const stop = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

for (const mode of ['500', '429', 'timeout', 'malformed', 'wrong-shape'] as const) {
  test(`failover: first endpoint ${mode} → the second endpoint's answer is used`, async (t) => {
    const { sandbox, master, b1 } = await worldPromise;
    const bad = await failing(mode);
    try {
      const watcher = new TonWatcher(tonWithJetton(master), {
        network,
        providers: pool(
          [
            { name: 'bad', url: bad.url },
            { name: 'sandbox', url: sandbox.url },
          ],
          hangTimeout(mode === 'timeout'),
        ),
      });
      const blocks = await watcher.scan(FIRST + 1, FIRST + 1, watching([pool0]));
      t.deepEqual(
        blocks[0]!.transfers.map((x) => [x.toAddress, x.amountUnits, x.memo]),
        [[pool0, 1_500_000_000n, 'inv-42']],
      );
      t.is(blocks[0]!.hash, b1.rootHash);
      t.deepEqual(await watcher.head(), { height: FIRST + 3, finalized: FIRST + 3 });
      t.true(bad.hits() >= 1);
    } finally {
      await stop(bad.server);
    }
  });
}

test('all endpoints failing → ProviderError with the failure kind', async (t) => {
  const cases = [
    ['500', 'http_error'],
    ['429', 'rate_limited'],
    ['timeout', 'timeout'],
    ['malformed', 'malformed'],
    ['wrong-shape', 'malformed'],
  ] as const;
  for (const [mode, failure] of cases) {
    const a = await failing(mode);
    const b = await failing(mode);
    try {
      const watcher = new TonWatcher(tonDefinition, {
        network,
        providers: pool(
          [
            { name: 'a', url: a.url },
            { name: 'b', url: b.url },
          ],
          hangTimeout(mode === 'timeout'),
        ),
      });
      const error = await t.throwsAsync(watcher.head(), { instanceOf: ProviderError });
      t.is(error?.failure, failure, mode);
      t.is(error?.provider, 'b', mode);
      const scanError = await t.throwsAsync(watcher.scan(FIRST + 1, FIRST + 1, watching([pool0])), { instanceOf: ProviderError });
      t.is(scanError?.failure, failure, mode);
    } finally {
      await Promise.all([stop(a.server), stop(b.server)]);
    }
  }
});
