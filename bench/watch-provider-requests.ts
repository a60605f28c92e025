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
 * - a transfer's verification at quorum 2 (docs/watchers.md, "The quorum"): each of two providers of
 *   different operators is asked `head()`, then the transaction on its own where the chain's
 *   watcher offers it (`transactionIn`: Esplora's `GET /tx/:txid`), else `scan(h, h)` restricted
 *   to the transfer's address, as the quorum verifier asks.
 *
 * From these and the chain's block time (a pass every `pollIntervalOf` seconds) it computes the
 * requests of a day of following the chain, the providers' daily budget at `publicLimitShare` of
 * their documented limit, and how many invoices a day fit in what is left, at quorum 1 and 2. The
 * unit is what the budget paces: requests, and on EVM chains JSON-RPC calls (a batch counts its
 * calls). A budget belongs to its limit's scope (a public provider's host, or the `limitScope` its
 * chain data names: PublicNode's one limit across its chains), so the per-chain figures are each
 * chain alone on it; a last table adds up the chains that scan through one scope at once.
 * Prints markdown tables (docs/performance.md, "Public providers: requests per chain").
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/watch-provider-requests.ts [--network mainnet|testnet] [--share 0.5]
 *   [--mempoolAddressesPerPass 100] [--addressActiveSeconds 3600] [--btcFullBlockTransactions 3700]
 */
import { chains } from '@gw/app-gateway';
import { operatorOf, pollIntervalOf, type ChainModule, type NetworkDefinition, type PublicProvider } from '@gw/kernel';
import { budgetScopeOf } from '@gw/plugin-watchers';
import { watchedSet } from '@gw/kernel/testing';
import { startReplayedProvider, type ReplayedProvider } from '@gw/testing';
import { benchOptions } from './bench-options.js';

const options = benchOptions({
  network: 'mainnet',
  // plugins.watchers.publicLimitShare's default.
  share: 0.5,
  // plugins.watchers.mempoolAddressesPerPass's default.
  mempoolAddressesPerPass: 100,
  // How long an invoice's address has its mempool probed: the invoice's lifetime (plugins.invoices.defaultExpirySeconds,
  // 3600). Budgeted providers are not asked about addresses in the pool's cooldown after it (ScanTarget.mempoolScope).
  addressActiveSeconds: 3600,
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
  /** Budget units (requests; EVM: calls) per block read: a full block where the recorded one is far smaller (Bitcoin), else the recorded block's. */
  readonly perBlock: number;
  readonly mempoolPerAddress: Cost | undefined;
  /** Blocks one `scan` call reads at most (`ChainWatcher.maxBlocksPerScan`). */
  readonly maxBlocksPerScan: number;
  /** Units a scan call costs once whatever its blocks (TON reads the parent block of the range; EVM the token logs and the chain id): part of `block`. */
  readonly scanOverhead: number;
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
                const paid = scan.transfers[0];
                const asked = paid ? { txHash: paid.txHash, blockHash: scan.hash, toAddress: paid.toAddress } : first.replay.transaction;
                if (r.watcher.transactionIn && asked) await r.watcher.transactionIn(asked.txHash, asked.blockHash, watchedSet([asked.toAddress]));
                else await r.watcher.scan(scan.height, scan.height, watchedSet(paidTo === undefined ? [] : [paidTo]));
              }),
            })),
          );
    const blockTime = module.definition.blockTimeSeconds ?? 5;
    const evm = network.evmChainId !== undefined;
    // EVM: the recorded one-block scan is its block's call and the range's overhead (the token logs, the chain id).
    const scanOverhead = module.definition.id === 'ton' ? 1 : evm ? block.calls - 1 : 0;
    const perBlock = module.definition.id === 'btc' ? 2 + Math.ceil(options.btcFullBlockTransactions / 25) : units(block, evm) - scanOverhead;
    return {
      chain: module.definition.id,
      network,
      blockTime,
      poll: pollIntervalOf(module.definition),
      providers,
      recordings: first.replay.recordings,
      pass,
      block,
      perBlock,
      mempoolPerAddress,
      maxBlocksPerScan: first.watcher.maxBlocksPerScan,
      scanOverhead,
      verification,
    };
  } finally {
    await Promise.all(replayed.map((r) => r.close()));
  }
}

/** What the budget paces: requests, and on EVM chains the calls they carry. */
const units = (c: Cost, evm: boolean): number => (evm ? c.calls : c.requests);

/** The budget a public provider of `f`'s network draws on: its host, or the wider scope its chain data names. */
const scopeOf = (f: Pick<ChainFigures, 'chain' | 'network'>, provider: PublicProvider): string =>
  budgetScopeOf(f.chain, f.network.id, { ...provider, origin: 'public' });

/** A provider's requests (EVM: calls) a day at `share` of its documented limit: its scope's, shared by every network on it. */
function budget(provider: PublicProvider): number {
  const perSecond = provider.limit.requestsPerSecond * options.share * DAY;
  return Math.floor(provider.limit.requestsPerDay === undefined ? perSecond : Math.min(perSecond, provider.limit.requestsPerDay * options.share));
}

type Carried = number | 'unbounded' | 'over budget';

interface Daily {
  /** Seconds between two passes. */
  readonly interval: number;
  readonly passes: number;
  readonly blocks: number;
  /** Requests of a day of following the chain (passes, block scans), on the scanning provider. */
  readonly following: number;
  readonly invoicesQuorum1: Carried;
  readonly invoicesQuorum2: Carried | 'one operator';
}

/** A day of `f`'s chain with a pass every `interval` seconds (the default: the chain's block time, 1 to 30 s). */
function daily(f: ChainFigures, interval: number): Daily {
  const passes = DAY / interval;
  const blocks = DAY / f.blockTime;
  const evm = f.network.evmChainId !== undefined;
  // A pass reads what arrived since the last, in scans of up to maxBlocksPerScan blocks: each block its own cost, each
  // scan its overhead (TON the parent block; EVM the token logs and the chain id check).
  const scansPerPass = Math.ceil(Math.max(1, interval / f.blockTime) / f.maxBlocksPerScan);
  const scans = blocks * f.perBlock + passes * scansPerPass * f.scanOverhead;
  const following = Math.round(passes * units(f.pass, evm) + scans);
  const scanner = f.providers[0]!;
  const left = budget(scanner) - following;
  // Each invoice's address is watched (its mempool probed where the provider is asked per address) for addressActiveSeconds.
  const activeDays = options.addressActiveSeconds / DAY;
  const mempool = f.mempoolPerAddress === undefined ? 0 : units(f.mempoolPerAddress, evm);
  const windowFull = passes * mempool * options.mempoolAddressesPerPass;
  const carried = (perInvoiceOnScanner: number): Carried => {
    if (left < 0) return 'over budget';
    if (mempool === 0) return perInvoiceOnScanner === 0 ? 'unbounded' : Math.floor(left / perInvoiceOnScanner);
    const byProbing = Math.floor(left / (perInvoiceOnScanner + passes * mempool * activeDays));
    if (byProbing * activeDays <= options.mempoolAddressesPerPass) return byProbing;
    // Past a full window (mempoolAddressesPerPass addresses a pass) probing costs no more; each address is probed less often.
    const afterWindow = left - windowFull;
    if (afterWindow <= 0) return Math.floor(options.mempoolAddressesPerPass / activeDays);
    return perInvoiceOnScanner === 0 ? 'unbounded' : Math.floor(afterWindow / perInvoiceOnScanner);
  };
  let invoicesQuorum2: Daily['invoicesQuorum2'] = 'one operator';
  if (f.verification) {
    // The scanning provider pays its verification out of what following leaves; the other attestor out of its whole budget.
    const onScanner = f.verification.find((v) => v.provider.name === scanner.name)?.cost;
    const byOthers = f.verification.filter((v) => v.provider.name !== scanner.name).map((v) => Math.floor(budget(v.provider) / units(v.cost, evm)));
    const q = carried(onScanner === undefined ? 0 : units(onScanner, evm));
    invoicesQuorum2 = typeof q === 'number' ? Math.min(q, ...byOthers) : q === 'unbounded' ? Math.min(...byOthers) : q;
  }
  return { interval, passes, blocks, following, invoicesQuorum1: carried(0), invoicesQuorum2 };
}

/** The shortest whole-second pass interval (up to 10 minutes) at which following `f`'s chain takes at most `part` of the scanning provider's budget. */
function fittingInterval(f: ChainFigures, part: number): number | undefined {
  for (let interval = f.poll; interval <= 600; interval++) if (daily(f, interval).following <= budget(f.providers[0]!) * part) return interval;
  return undefined;
}

/** Units of a day of `f`'s chain's blocks alone (no pass or scan overhead): the floor of following it. */
function blocksFloor(f: ChainFigures): number {
  return Math.round((DAY / f.blockTime) * f.perBlock);
}

const n = (value: number): string => Math.round(value).toLocaleString('en-US');
const cost = (c: Cost, evm: boolean): string => (evm ? `${c.requests} (${c.calls} calls)` : String(c.requests));

const report: string[] = [];
const skipped: string[] = [];
/** Per scanning provider's scope: the chains that scan through it and what following them costs a day. */
const onScope = new Map<string, { budget: number; chains: { figures: ChainFigures; following: number }[] }>();

/** The shortest whole-second `scanIntervalSeconds` for every chain of `figures` (each at its own poll at least) at which following them all takes at most `part` of `budgetADay`. */
function commonInterval(figures: readonly ChainFigures[], budgetADay: number, part: number): number | undefined {
  for (let interval = 1; interval <= 600; interval++) {
    const total = figures.reduce((sum, f) => sum + daily(f, Math.max(interval, f.poll)).following, 0);
    if (total <= budgetADay * part) return interval;
  }
  return undefined;
}
for (const module of chains) {
  const network = options.network === 'mainnet' ? module.definition.networks.mainnet : module.definition.networks.testnets[0]!;
  const figures = await chainFigures(module, network);
  if (typeof figures === 'string') {
    skipped.push(figures);
    continue;
  }
  const d = daily(figures, figures.poll);
  const evm = network.evmChainId !== undefined;
  const scanning = figures.providers[0]!;
  const shared = onScope.get(scopeOf(figures, scanning)) ?? { budget: budget(scanning), chains: [] };
  shared.chains.push({ figures, following: d.following });
  onScope.set(scopeOf(figures, scanning), shared);
  const limits = figures.providers
    .map(
      (p) =>
        `${p.name} ${p.limit.requestsPerSecond}/s${p.limit.requestsPerDay ? `, ${n(p.limit.requestsPerDay)}/day` : ''}${p.limitScope ? ` (one limit across ${p.limitScope})` : ''}`,
    )
    .join('; ');
  const carried = (c: Daily['invoicesQuorum2']): string => (typeof c === 'number' ? n(c) : c === 'unbounded' ? 'no limit from requests' : c);
  const over = d.following > budget(figures.providers[0]!);
  const slower = over ? fittingInterval(figures, 0.5) : undefined;
  const s = slower === undefined ? undefined : daily(figures, slower);
  const tightest = over && slower === undefined ? fittingInterval(figures, 1) : undefined;
  const t = tightest === undefined ? undefined : daily(figures, tightest);
  report.push(
    `#### ${figures.chain} (${network.name}): a block every ${figures.blockTime} s, a pass every ${figures.poll} s`,
    '',
    `Providers: ${limits}. Replayed: ${figures.recordings}.`,
    '',
    `| measure | ${evm ? 'requests (calls: what the budget counts)' : 'requests'} |`,
    '| --- | --- |',
    `| a pass's tip and reorg check | ${cost(figures.pass, evm)} |`,
    `| a block scanned (the recorded block) | ${cost(figures.block, evm)}${evm ? ` (up to ${figures.maxBlocksPerScan} blocks a scan: 1 call each, + ${figures.scanOverhead} a scan)` : ''} |`,
    ...(figures.chain === 'btc'
      ? [`| a block scanned (a full block of ${n(options.btcFullBlockTransactions)} transactions: 2 + 1 per 25) | ${figures.perBlock} |`]
      : []),
    `| a watched address, per pass | ${figures.mempoolPerAddress ? `${figures.mempoolPerAddress.requests} (mempool; at most ${options.mempoolAddressesPerPass} addresses a pass)` : '0 (blocks are read whole)'} |`,
    `| a transfer verified, quorum 1 | 0 |`,
    `| a transfer verified, quorum 2 (tip + the transaction or its block, per provider) | ${figures.verification ? figures.verification.map((v) => `${v.provider.name} ${cost(v.cost, evm)}`).join(', ') : 'one operator: quorum 1'} |`,
    `| following a day (${n(d.passes)} passes, ${n(d.blocks)} blocks) | ${n(d.following)}${evm ? ' calls' : ''} on ${figures.providers[0]!.name} |`,
    `| budget a day at ${options.share} of the limit | ${figures.providers.map((p) => `${p.name} ${n(budget(p))}${p.limitScope ? ' (shared)' : ''}`).join(', ')} |`,
    `| invoices a day, quorum 1 | ${carried(d.invoicesQuorum1)} |`,
    `| invoices a day, quorum 2 | ${carried(d.invoicesQuorum2)} |`,
    ...(over && !s
      ? [
          `| following within half the budget | at no pace: the blocks alone cost ${n(blocksFloor(figures))} a day |`,
          t
            ? `| following within the whole budget | a pass every ${t.interval} s: ${n(t.following)} a day; invoices a day at that pace, quorum 1: ${carried(t.invoicesQuorum1)} |`
            : `| following within the whole budget | at no pace (up to a pass every 600 s) |`,
        ]
      : []),
    ...(s
      ? [
          `| following a day with a pass every ${s.interval} s (\`scanIntervalSeconds\`, half the budget) | ${n(s.following)} |`,
          `| invoices a day at that pace, quorum 1 / quorum 2 | ${carried(s.invoicesQuorum1)} / ${carried(s.invoicesQuorum2)} |`,
        ]
      : []),
    '',
  );
}
const sharedScopes = [...onScope].filter(([, s]) => s.chains.length > 1);
if (sharedScopes.length > 0) {
  const fitting = (s: { budget: number; chains: { figures: ChainFigures }[] }, part: number) => {
    const interval = commonInterval(
      s.chains.map((c) => c.figures),
      s.budget,
      part,
    );
    return interval === undefined ? 'none up to 600 s' : `${interval} s`;
  };
  report.push(
    '#### Limits shared by chains that scan through them',
    '',
    '| scope | chains scanning through it, following a day each | all of them | its budget a day | one `scanIntervalSeconds` for all within half / all of it |',
    '| --- | --- | --- | --- | --- |',
    ...sharedScopes.map(
      ([scope, s]) =>
        `| ${scope} | ${s.chains.map((c) => `${c.figures.chain} ${n(c.following)}`).join(', ')} | ${n(s.chains.reduce((sum, c) => sum + c.following, 0))} | ${n(s.budget)} | ${fitting(s, 0.5)} / ${fitting(s, 1)} |`,
    ),
    '',
  );
}
console.log(report.join('\n'));
if (skipped.length > 0) console.log(`Not measured:\n${skipped.map((s) => `- ${s}`).join('\n')}`);
