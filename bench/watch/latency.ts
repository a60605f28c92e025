/**
 * Benchmark: block-to-webhook latency on a real node: EVM (`@foundry-rs/anvil`, Sepolia's chain id)
 * or Bitcoin (`--node bcoin`: bcoin 1.0.2 on regtest as a `bitcoin-core` provider of btc/regtest,
 * publishing Bitcoin Core's ZMQ `hashblock`/`rawtx`, see packages/testing/src/bcoin-launcher.cjs).
 *
 * One gateway kernel (role `all`: HTTP, pg-boss workers, the `watchers.scan` job loop, webhook
 * delivery) on a fresh database, a testnet project with a verified wallet, and a local receiver
 * that checks every signature. For each sample: an invoice over the signed REST API; a real
 * payment; `invoice.detected` arrives at D; the remaining confirmation blocks are mined, the
 * threshold block at B2; `invoice.paid` arrives at P. Reported per setting of `scanIntervalSeconds`:
 * - detected: D - B1, where B1 is the payment's arrival at the provider: on anvil the block with
 *   the payment (mined at once, automine), on bcoin the transaction entering the node's mempool
 *   (Bitcoin invoices are detected from the mempool);
 * - paid: P - B2;
 *   B1 and B2 are when the bench's own subscription to the node hears of them (anvil:
 *   `eth_subscribe("newHeads")` on its WebSocket; bcoin: its ZMQ `rawtx` and `hashblock`), as any
 *   client sees them, independent of the gateway's own subscription;
 * - of which delivery: arrival minus the envelope's `created_at_iso` (the outbox write in the
 *   scan pass): the rest is the wait for the next scan pass.
 * A random pause before each payment spreads the samples over the phase of the scan loop.
 *
 * `--modes poll,push`: `poll` gives the provider only its HTTP URL (detection at the next scan
 * pass); `push` adds the node's push endpoint (anvil's WebSocket as `wsUrl`, bcoin's ZMQ as
 * `zmqUrl`), so a new block (or, on bcoin, a transaction to a watched address) starts a pass at
 * once (polling goes on beside it at the interval).
 *
 * `--node litecoind`: Debian's litecoind on regtest as ltc/regtest (a `bitcoin-core` provider);
 * arrivals are polled by the bench every 10 ms; push only with a litecoind built with ZMQ.
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx -y pnpm@10.34.9 exec tsx bench/watch/latency.ts [--node anvil|bcoin|litecoind] [--samples 10] [--intervals 5,1] [--modes poll,push]
 */
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import { signedFetch, waitFor } from '@gw/kernel/testing';
import { startBenchTestKernel } from '../bench-kernel.js';
import { Anvil, projectWithPools, Bcoin, Litecoind } from '@gw/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { parseEther } from 'ethers';
import { Subscriber } from 'zeromq';
import * as bitcoin from 'bitcoinjs-lib';
import { benchPostgres } from '../bench-database.js';
import { benchOptions } from '../bench-options.js';
import { Receiver } from '@gw/plugin-webhooks/testing';

const values = benchOptions({ node: 'anvil', samples: 10, intervals: '5,1', modes: 'poll' });
const samples = values.samples;
const intervals = values.intervals.split(',').map(Number);
const modes = values.modes.split(',') as ('poll' | 'push')[];
if (!['anvil', 'bcoin', 'litecoind'].includes(values.node)) throw new Error(`--node: anvil, bcoin or litecoind, not ${values.node}`);

/** One node the bench pays through, with its own view of when payments and blocks arrive. */
interface BenchNode {
  readonly chain: ChainId;
  readonly network: string;
  readonly coin: string;
  readonly amount: string;
  readonly rates: Record<string, string>;
  provider(mode: 'poll' | 'push'): Record<string, unknown>;
  /** Pays `address`; resolves to when the payment reached the node (B1), once it has. */
  pay(address: string): Promise<() => Promise<number>>;
  /** Mines `blocks`; resolves to when the last of them reached the node (B2), once it has. */
  mine(blocks: number): Promise<() => Promise<number>>;
  /** Blocks the payment still needs after `pay` for the invoice's threshold. */
  remaining(threshold: number): number;
  stop(): Promise<void>;
}

/**
 * `heard(key)` for a map the bench fills with the time each payment or block reached the node:
 * a function that waits (10 s at most) for the arrival of `key` and answers its time.
 */
function arrivalIn<K>(arrivals: ReadonlyMap<K, number>): (key: K) => () => Promise<number> {
  return (key) => async () => {
    await waitFor(async () => arrivals.has(key), 10_000);
    return arrivals.get(key)!;
  };
}

/** anvil: automine, so a payment is a block; its arrival is the bench's own newHeads. */
async function anvilNode(): Promise<BenchNode> {
  const anvil = await Anvil.start(11155111);
  const at = new Map<number, number>();
  const ws = new WebSocket(anvil.url.replace('http://', 'ws://'));
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve);
    ws.addEventListener('error', reject);
  });
  ws.addEventListener('message', (event) => {
    const now = Date.now();
    const message = JSON.parse(String(event.data)) as { method?: string; params?: { result?: { number?: string } } };
    if (message.method === 'eth_subscription' && message.params?.result?.number) at.set(Number(BigInt(message.params.result.number)), now);
  });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  const payer = (await anvil.accounts())[0]!;
  const heard = arrivalIn(at);
  return {
    chain: 'eth',
    network: 'sepolia',
    coin: 'eth',
    amount: '0.1',
    rates: { ETH: '3000' },
    provider: (mode) => ({ name: 'anvil', url: anvil.url, ...(mode === 'push' ? { wsUrl: anvil.url.replace('http://', 'ws://') } : {}) }),
    async pay(address) {
      const txHash = await anvil.sendEth(payer, address, parseEther('0.1'));
      return heard(Number(BigInt((await anvil.receipt(txHash)).blockNumber)));
    },
    async mine(blocks) {
      await anvil.mine(blocks);
      return heard(await anvil.blockNumber());
    },
    remaining: (threshold) => threshold - 1,
    async stop() {
      ws.close();
      await anvil.stop();
    },
  };
}

/** bcoin with Core's ZMQ: a payment arrives as its `rawtx`, a block as its `hashblock`. */
async function bcoinNode(): Promise<BenchNode> {
  const node = await Bcoin.startMature({ zmq: true });
  const at = new Map<string, number>();
  const socket = new Subscriber();
  socket.subscribe('rawtx');
  socket.subscribe('hashblock');
  socket.connect(node.zmqUrl!);
  void (async () => {
    for await (const [topic, body] of socket) {
      const now = Date.now();
      const id = topic!.toString() === 'rawtx' ? bitcoin.Transaction.fromBuffer(body!).getId() : body!.toString('hex');
      if (!at.has(id)) at.set(id, now);
    }
  })().catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const heard = arrivalIn(at);
  return {
    chain: 'btc',
    network: 'regtest',
    coin: 'btc',
    amount: '0.01',
    rates: { BTC: '60000' },
    provider: (mode) => ({ name: 'bcoin', kind: 'bitcoin-core', url: node.url, password: node.apiKey, ...(mode === 'push' ? { zmqUrl: node.zmqUrl } : {}) }),
    pay: async (address) => heard(await node.send(address, 1_000_000n)),
    async mine(blocks) {
      const hashes = await node.mine(blocks);
      return heard(hashes[hashes.length - 1]!);
    },
    remaining: (threshold) => threshold,
    async stop() {
      socket.close();
      await node.stop();
    },
  };
}

/**
 * litecoind (Debian's 0.21 on regtest, ltc/regtest): a payment arrives when `getrawmempool` first
 * lists it, a block when `getblockcount` first reaches it, both polled by the bench every 10 ms
 * (within about 10 ms of the node; with ZMQ, its own `rawtx`/`hashblock` instead). Push needs a
 * litecoind built with ZMQ (Debian's is not): `--modes push` stops with a clear error otherwise.
 */
async function litecoindNode(push: boolean): Promise<BenchNode> {
  const node = await Litecoind.start({ zmq: push });
  if (push && !(await node.hasZmq())) {
    await node.stop();
    throw new Error('this litecoind has no ZMQ (Debian builds it without): --node litecoind measures polling only here');
  }
  await node.mine(101);
  let stopped = false;
  const seen = new Map<string, number>();
  const watch = async (id: string, present: () => Promise<boolean>) => {
    while (!stopped && !seen.has(id)) {
      if (await present()) seen.set(id, Date.now());
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const heard = arrivalIn(seen);
  return {
    chain: 'ltc' as ChainId,
    network: 'regtest',
    coin: 'ltc',
    amount: '0.01',
    rates: { LTC: '80' },
    provider: (mode) => ({
      name: 'litecoind',
      kind: 'bitcoin-core',
      url: node.url,
      username: node.username,
      password: node.password,
      ...(mode === 'push' ? { zmqUrl: node.zmqUrl } : {}),
    }),
    async pay(address) {
      const txid = await node.send(address, 1_000_000n);
      void watch(txid, async () => (await node.mempool()).includes(txid));
      return heard(txid);
    },
    async mine(blocks) {
      const target = (await node.height()) + blocks;
      void watch(`block:${target}`, async () => (await node.height()) >= target);
      await node.mine(blocks);
      return heard(`block:${target}`);
    },
    remaining: (threshold) => threshold,
    async stop() {
      stopped = true;
      await node.stop();
    },
  };
}

const postgres = await benchPostgres();
const rows: string[] = [];

for (const mode of modes)
  for (const interval of intervals) {
    const node = values.node === 'bcoin' ? await bcoinNode() : values.node === 'litecoind' ? await litecoindNode(mode === 'push') : await anvilNode();
    const receiver = await Receiver.start();
    try {
      await postgres.withDatabase(async (url) => {
        const gw = await startBenchTestKernel(url, 'all', {
          'plugins.rates.providers': ['fixed'],
          'plugins.rates.fixed': node.rates,
          'plugins.address-pool.targetFree': samples + 5,
          'plugins.webhooks.allowPrivateTargets': true,
          'plugins.watchers.chains': { [node.chain]: { [node.network]: { providers: [node.provider(mode)] } } },
          'plugins.watchers.scanIntervalSeconds': interval,
          // btc/regtest and ltc/regtest: testnet projects derive the node's `bcrt1…`/`rltc1…` addresses.
          ...(node.chain === 'btc' ? { 'chains.testNetworks': { btc: 'regtest' } } : {}),
          ...(node.chain === 'ltc'
            ? { 'chains.enabled': ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton', 'ltc'], 'chains.testNetworks': { ltc: 'regtest' } }
            : {}),
        });
        try {
          const operatorId = (await gw.kernel.cradle.tenancyOperators.create('bench-latency', CLI_ACTOR)).id;
          const project = await projectWithPools(gw, operatorId, [node.chain], 'testnet');
          if (mode === 'push')
            await waitFor(async () => (await gw.kernel.cradle.watchersMetrics.pushConnected.get()).values.some((v) => v.value === 1), 30_000);
          await gw.kernel.cradle.tenancyProjects.setWebhookUrl(project.projectId, `${receiver.url}/hooks`, CLI_ACTOR);
          const arrival = (invoiceId: string, type: string) =>
            receiver.requests.find((r) => {
              const body = JSON.parse(r.body) as { event_type: string; data: { invoice_id: string } };
              return body.event_type === type && body.data.invoice_id === invoiceId;
            });
          const detected: number[] = [];
          const paid: number[] = [];
          const delivery: number[] = [];
          for (let i = 0; i < samples; i += 1) {
            const created = await signedFetch(gw.url, '/api/v1/invoices', {
              ...project,
              method: 'POST',
              body: { external_id: `latency-${i}`, coin: node.coin, amount_crypto: node.amount },
            });
            if (created.status !== 201) throw new Error(JSON.stringify(created.body));
            const invoice = created.body as { id: string; address: string; confirmation_threshold: number };
            await new Promise((resolve) => setTimeout(resolve, Math.random() * interval * 1000));
            const paymentArrived = await node.pay(invoice.address);
            await waitFor(async () => arrival(invoice.id, 'invoice.detected') !== undefined, 60_000);
            const thresholdArrived = await node.mine(node.remaining(invoice.confirmation_threshold));
            await waitFor(async () => arrival(invoice.id, 'invoice.paid') !== undefined, 60_000);
            for (const [type, from, into] of [
              ['invoice.detected', await paymentArrived(), detected],
              ['invoice.paid', await thresholdArrived(), paid],
            ] as const) {
              const request = arrival(invoice.id, type)!;
              if (!verifyWebhook({ rawBody: request.body, header: String(request.headers['x-service-signature']), secrets: [project.secret] }).ok)
                throw new Error('bad signature');
              into.push(request.at - from);
              delivery.push(request.at - Date.parse((JSON.parse(request.body) as { created_at_iso: string }).created_at_iso));
            }
          }
          const stat = (list: number[]) => {
            const sorted = [...list].sort((a, b) => a - b);
            const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
            return `${at(50)} | ${at(90)} | ${at(99)} | ${sorted[sorted.length - 1]}`;
          };
          const first = values.node === 'anvil' ? 'block with the payment' : 'payment in the mempool';
          rows.push(`| ${mode} | ${interval} s | ${first} to invoice.detected | ${samples} | ${stat(detected)} |`);
          rows.push(`| ${mode} | ${interval} s | threshold block to invoice.paid | ${samples} | ${stat(paid)} |`);
          rows.push(`| ${mode} | ${interval} s | of which delivery (event written to arrival) | ${delivery.length} | ${stat(delivery)} |`);
          console.error(`${mode}, scanIntervalSeconds ${interval}: done`);
        } finally {
          await gw.close();
        }
      });
    } finally {
      await receiver.close();
      await node.stop();
    }
  }
await postgres.stop();

console.log(`\nblock-to-webhook latency on ${values.node} (ms), node ${process.version}\n`);
console.log('| detection | scanIntervalSeconds | leg | samples | p50 | p90 | p99 | max |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
