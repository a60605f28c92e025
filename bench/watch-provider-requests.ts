/**
 * Benchmark: what watching costs the default public providers (issue 40), in requests, per chain.
 *
 * Each public provider of each chain's network (the chain data's `publicProviders`) is stood in for
 * by a local server replaying recorded real answers of its API (@gw/testing `provider-replay`; the
 * fixture READMEs say where each answer was recorded), at the provider's URL path, and the chain's
 * watcher is built on it as the watchers plugin builds one. The replay server counts every HTTP
 * request it receives (and the JSON-RPC calls inside EVM batches). Measured, one step at a time:
 *
 * - a pass's fixed reads: `head()` and `blockHash(cursor)` (the reorg check);
 * - a scan of one recorded block (`scan(h, h)`), the per-block cost;
 * - the mempool of one watched address (chains whose providers are asked per address: Esplora);
 * - a transfer's verification at quorum 2 (DESIGN40 "The trust rule"): each of two providers of
 *   different operators is asked `head()` and `scan(h, h)` restricted to the transfer's address.
 *
 * From these and the chain's block time (a pass every `pollIntervalOf` seconds) it computes the
 * requests of a day of following the chain, the providers' daily budget at `publicLimitShare` of
 * their documented limit, and how many invoices a day fit in what is left, at quorum 1 and 2.
 * Prints markdown tables (docs/performance.md, "Public providers: requests per chain").
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/watch-provider-requests.ts [--network mainnet|testnet] [--share 0.5]
 *   [--mempoolAddressesPerPass 100] [--addressActiveSeconds 90000] [--btcFullBlockTransactions 3700]
 */
import { chains } from '@gw/app-gateway';
import { operatorOf, pollIntervalOf, type ChainModule, type NetworkDefinition, type PublicProvider } from '@gw/kernel';
import { watchedSet } from '@gw/kernel/testing';
import { startReplayedProvider, type ReplayedProvider } from '@gw/testing';
import { benchOptions } from './bench-options.js';

const options = benchOptions({
  network: 'mainnet',
  // plugins.watchers.publicLimitShare's default.
  share: 0.5,
  // plugins.watchers.mempoolAddressesPerPass's default.
  mempoolAddressesPerPass: 100,
  // How long an invoice's address is watched: the invoice's lifetime (plugins.invoices.defaultExpirySeconds, 3600)
  // and the pool's cooldown after it (plugins.address-pool.cooldownSeconds, 86400).
  addressActiveSeconds: 90_000,
  // Transactions in a full Bitcoin mainnet block (Esplora pages of 25), for the per-block figure of a real block.
  btcFullBlockTransactions: 3700,
});

const DAY = 86_400;

/** HTTP requests and JSON-RPC calls one step cost at one replay server. */
interface Cost {
  readonly requests: number;
  readonly calls: number;
}

async function measure(replayed: ReplayedProvider, step: () => Promise<unknown>): Promise<Cost> {
  replayed.server.reset();
  await step();
  return { requests: replayed.server.requests.length, calls: replayed.server.calls };
}

interface ChainFigures {
  readonly chain: string;
  readonly network: NetworkDefinition;
  readonly blockTime: number;
  readonly poll: number;
  readonly providers: readonly PublicProvider[];
  readonly recordings: string;
  readonly pass: Cost;
  readonly block: Cost;
  /** Requests of a full block where the recorded one is far smaller (Bitcoin); else the recorded block's. */
  readonly fullBlock: number;
  readonly mempoolPerAddress: Cost | undefined;
  /** Per provider asked at quorum 2 (two operators), or undefined where the network has one operator. */
  readonly verification: readonly { readonly provider: PublicProvider; readonly cost: Cost }[] | undefined;
}

async function chainFigures(module: ChainModule, network: NetworkDefinition): Promise<ChainFigures | string> {
  const providers = network.publicProviders ?? [];
  if (providers.length === 0) return `${module.definition.id}/${network.id}: no public providers`;
  const replayed: ReplayedProvider[] = [];
  try {
    for (const provider of providers) replayed.push(await startReplayedProvider(module, network, provider));
  } catch (error) {
    await Promise.all(replayed.map((r) => r.close()));
    return `${module.definition.id}/${network.id}: ${(error as Error).message}`;
  }
  try {
    const first = replayed[0]!;
    const { scan } = first.replay;
    const all = watchedSet(scan.watched);
    const pass = await measure(first, async () => {
      await first.watcher.head();
      await first.watcher.blockHash(scan.height);
    });
    const block = await measure(first, () => first.watcher.scan(scan.height, scan.height, all));
    const watcher = first.watcher;
    // One watched address waiting for a payment: what the mempool step asks of a per-address provider.
    const waiting = scan.watched.slice(0, 1);
    const mempoolPerAddress = watcher.mempool && waiting.length === 1 ? await measure(first, () => watcher.mempool!(watchedSet(waiting))) : undefined;
    // Quorum 2: the first provider of each of two operators re-reads the transfer's block.
    const byOperator = new Map<string, ReplayedProvider>();
    for (const r of replayed) if (!byOperator.has(operatorOf(r.endpoint))) byOperator.set(operatorOf(r.endpoint), r);
    const attestors = [...byOperator.values()].slice(0, 2);
    const paidTo = scan.transfers[0]?.toAddress;
    const verification =
      attestors.length < 2
        ? undefined
        : await Promise.all(
            attestors.map(async (r) => ({
              provider: r.provider,
              cost: await measure(r, async () => {
                await r.watcher.head();
                await r.watcher.scan(scan.height, scan.height, watchedSet(paidTo === undefined ? [] : [paidTo]));
              }),
            })),
          );
    const blockTime = module.definition.blockTimeSeconds ?? 5;
    const fullBlock = module.definition.id === 'btc' ? 2 + Math.ceil(options.btcFullBlockTransactions / 25) : block.requests;
    return {
      chain: module.definition.id,
      network,
      blockTime,
      poll: pollIntervalOf(module.definition),
      providers,
      recordings: first.replay.recordings,
      pass,
      block,
      fullBlock,
      mempoolPerAddress,
      verification,
    };
  } finally {
    await Promise.all(replayed.map((r) => r.close()));
  }
}

/** A provider's requests a day at `share` of its documented limit. */
function budget(provider: PublicProvider): number {
  const perSecond = provider.limit.requestsPerSecond * options.share * DAY;
  return Math.floor(provider.limit.requestsPerDay === undefined ? perSecond : Math.min(perSecond, provider.limit.requestsPerDay * options.share));
}

interface Daily {
  readonly passes: number;
  readonly blocks: number;
  /** Requests of a day of following the chain (passes, block scans), on the scanning provider. */
  readonly following: number;
  readonly budget: number;
  readonly invoicesQuorum1: number | 'unbounded' | 'over budget';
  readonly invoicesQuorum2: number | 'unbounded' | 'over budget' | 'one operator';
}

function daily(f: ChainFigures): Daily {
  const passes = DAY / f.poll;
  const blocks = DAY / f.blockTime;
  // A pass scans what arrived since the last; EVM batches up to 20 blocks in one request, the others pay per block.
  const evm = f.network.evmChainId !== undefined;
  const scans = evm ? Math.min(passes, blocks) * f.block.requests : blocks * f.fullBlock;
  const following = Math.round(passes * f.pass.requests + scans);
  const scanner = f.providers[0]!;
  const left = budget(scanner) - following;
  // Invoices whose addresses are watched at once, per invoice a day: each stays watched addressActiveSeconds.
  const activeDays = options.addressActiveSeconds / DAY;
  const mempool = f.mempoolPerAddress?.requests ?? 0;
  const carried = (perInvoiceOnScanner: number, windowFull: number): number | 'unbounded' | 'over budget' => {
    if (left <= 0) return 'over budget';
    if (mempool === 0) return perInvoiceOnScanner === 0 ? 'unbounded' : Math.floor(left / perInvoiceOnScanner);
    // Mempool probing: one request per watched address per pass, at most mempoolAddressesPerPass a pass.
    const perInvoice = perInvoiceOnScanner + passes * mempool * activeDays;
    const byProbing = Math.floor(left / perInvoice);
    // Past a full window the probing costs no more (each address is probed less often); what is left pays verification.
    if (byProbing * activeDays <= options.mempoolAddressesPerPass) return byProbing;
    const afterWindow = left - windowFull;
    if (afterWindow <= 0) return Math.floor(options.mempoolAddressesPerPass / activeDays);
    return perInvoiceOnScanner === 0 ? 'unbounded' : Math.floor(afterWindow / perInvoiceOnScanner);
  };
  const windowFull = passes * mempool * options.mempoolAddressesPerPass;
  const invoicesQuorum1 = carried(0, windowFull);
  let invoicesQuorum2: Daily['invoicesQuorum2'] = 'one operator';
  if (f.verification) {
    const [onScanner, ...others] = f.verification;
    const q = carried(onScanner!.provider.name === scanner.name ? onScanner!.cost.requests : 0, windowFull);
    const byOthers = others.map((o) => Math.floor(budget(o.provider) / o.cost.requests));
    invoicesQuorum2 = typeof q === 'number' ? Math.min(q, ...byOthers) : q === 'unbounded' ? Math.min(...byOthers) : q;
  }
  return { passes, blocks, following, budget: budget(scanner), invoicesQuorum1, invoicesQuorum2 };
}

const n = (value: number): string => Math.round(value).toLocaleString('en-US');
const cost = (c: Cost, evm: boolean): string => (evm ? `${c.requests} (${c.calls} calls)` : String(c.requests));

const report: string[] = [];
const skipped: string[] = [];
for (const module of chains) {
  const network = options.network === 'mainnet' ? module.definition.networks.mainnet : module.definition.networks.testnets[0]!;
  const figures = await chainFigures(module, network);
  if (typeof figures === 'string') {
    skipped.push(figures);
    continue;
  }
  const d = daily(figures);
  const evm = network.evmChainId !== undefined;
  const limits = figures.providers.map((p) => `${p.name} ${p.limit.requestsPerSecond}/s${p.limit.requestsPerDay ? `, ${n(p.limit.requestsPerDay)}/day` : ''}`).join('; ');
  report.push(
    `#### ${figures.chain} (${network.name}): a block every ${figures.blockTime} s, a pass every ${figures.poll} s`,
    '',
    `Providers: ${limits}. Replayed: ${figures.recordings}.`,
    '',
    '| measure | requests |',
    '| --- | --- |',
    `| a pass's tip and reorg check | ${cost(figures.pass, evm)} |`,
    `| a block scanned (the recorded block) | ${cost(figures.block, evm)} |`,
    ...(figures.chain === 'btc' ? [`| a block scanned (a full block of ${n(options.btcFullBlockTransactions)} transactions: 2 + 1 per 25) | ${figures.fullBlock} |`] : []),
    `| a watched address, per pass | ${figures.mempoolPerAddress ? `${figures.mempoolPerAddress.requests} (mempool; at most ${options.mempoolAddressesPerPass} addresses a pass)` : '0 (blocks are read whole)'} |`,
    `| a transfer verified, quorum 1 | 0 |`,
    `| a transfer verified, quorum 2 (tip + its block, per provider) | ${figures.verification ? figures.verification.map((v) => `${v.provider.name} ${cost(v.cost, evm)}`).join(', ') : 'one operator: quorum 1'} |`,
    `| following a day (${n(d.passes)} passes, ${n(d.blocks)} blocks) | ${n(d.following)} on ${figures.providers[0]!.name} |`,
    `| budget a day at ${options.share} of the limit | ${figures.providers.map((p) => `${p.name} ${n(budget(p))}`).join(', ')} |`,
    `| invoices a day, quorum 1 | ${typeof d.invoicesQuorum1 === 'number' ? n(d.invoicesQuorum1) : d.invoicesQuorum1} |`,
    `| invoices a day, quorum 2 | ${typeof d.invoicesQuorum2 === 'number' ? n(d.invoicesQuorum2) : d.invoicesQuorum2} |`,
    '',
  );
}
console.log(report.join('\n'));
if (skipped.length > 0) console.log(`Not measured:\n${skipped.map((s) => `- ${s}`).join('\n')}`);
