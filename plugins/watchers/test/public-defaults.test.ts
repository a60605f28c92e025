/**
 * Issue 40, the defaults: a network the config says nothing of is watched through its chain's
 * public providers (mainnet and the test network in use, every enabled chain), configured providers
 * replace them or join them, the quorum defaults to 2 where two operators exist, and a default
 * network costs its providers nothing until a pool address waits there.
 *
 * The registry is built from the chains as shipped, through the real `WatcherRegistry`; no provider
 * is asked anything, except where two local servers stand in for the public Esplora instances and
 * count what they are asked (they replay mempool.space's recorded tip height,
 * chains/btc/test/fixtures/mainnet-tip-height.txt, and answer 404 to everything else), and where a
 * real EVM node (anvil, Sepolia's chain id) stands in for Sepolia's public JSON-RPC providers.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { pino } from 'pino';
import { CLI_ACTOR, createChainRegistry, operatorOf, type ChainModule, type ChainRegistryOptions, type PublicProvider } from '@gw/kernel';
import { startTestKernel, waitFor, type TestKernel, type TestKernelOptions } from '@gw/kernel/testing';
import { btcChain } from '@gw/chain-btc';
import { ethChain } from '@gw/chain-eth';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { ALL_CHAINS, Anvil, FIXED_RATES, projectWithPools, ROOT } from '@gw/testing';
import { parseEther } from 'ethers';
import { SCAN_JOB, watchersPlugin } from '../src/index.js';
import type { WatchersConfig } from '../src/config.js';
import { nextPassDelaySeconds } from '../src/jobs.js';
import { IDLE_PASS_SECONDS, idleLookbackBlocks } from '../src/services/chain-scanner.js';
import { WatcherRegistry } from '../src/services/watcher-registry.js';

const EVERY_CHAIN = ALL_CHAINS.map((c) => c.definition.id);
const logger = pino({ level: 'silent' });

// One kernel lends the registry its services (metrics, pools, projects, database); each test builds
// registries of its own config over the chains as shipped.
let gw: TestKernel;
test.before(async () => {
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin],
    chains: ALL_CHAINS,
    role: 'cli',
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES },
  });
});
test.after.always(async () => {
  await gw?.close();
});

/** `chain` as shipped but for the networks `networks` names. */
const withNetworks = (chain: ChainModule, networks: Partial<ChainModule['definition']['networks']>): ChainModule => ({
  ...chain,
  definition: { ...chain.definition, networks: { ...chain.definition.networks, ...networks } },
});

/** A kernel of its own (closed at the test's end) watching the `enabled` chains through their public providers, `local` in place of the shipped chain of its id; rates fixed. */
async function publicProvidersKernel(
  t: ExecutionContext,
  enabled: string[],
  role: NonNullable<TestKernelOptions['role']>,
  local?: ChainModule,
): Promise<TestKernel> {
  const kernel = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin],
    chains: local ? [local, ...ALL_CHAINS.filter((c) => c.definition.id !== local.definition.id)] : ALL_CHAINS,
    role,
    config: {
      'chains.enabled': enabled,
      'plugins.watchers.publicProviders': true,
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
    },
  });
  t.teardown(() => kernel.close());
  return kernel;
}

/** A registry of `watchers` (over the kernel's own watcher config: public providers on) on the build's chains as `chains` says. */
function registry(
  watchers: Partial<WatchersConfig> = {},
  chains: ChainRegistryOptions = { enabled: EVERY_CHAIN },
  modules: readonly ChainModule[] = ALL_CHAINS,
) {
  const { watchersConfig, watchersMetrics, addressPoolService, tenancyProjects, db } = gw.kernel.cradle;
  return new WatcherRegistry({
    chains: createChainRegistry(modules, logger, chains),
    watchersConfig: { ...watchersConfig, publicProviders: true, chains: {}, ...watchers },
    watchersMetrics,
    addressPoolService,
    tenancyProjects,
    db,
  });
}

const summary = (r: WatcherRegistry) =>
  Object.fromEntries(
    r
      .list()
      .map((t) => [
        `${t.adapter.definition.id}.${t.network}`,
        { origin: t.origin, quorum: t.quorum, idle: t.idleUntilUsed, providers: t.providers!.endpoints.map((e) => `${e.name}@${operatorOf(e)}`) },
      ]),
  );

/** What the defaults watch, per network: its public providers (name@operator, in the order they are tried) and the quorum. */
const DEFAULTS: Record<string, { providers: string[]; quorum: number }> = {
  'btc.bitcoin': { providers: ['mempool.space@mempool-space', 'blockstream.info@blockstream'], quorum: 2 },
  'btc.signet': { providers: ['mempool.space@mempool-space', 'blockstream.info@blockstream'], quorum: 2 },
  'eth.ethereum': { providers: ['publicnode@allnodes', 'tenderly@tenderly', 'llamarpc@llamanodes'], quorum: 2 },
  'eth.sepolia': { providers: ['publicnode@allnodes', 'tenderly@tenderly'], quorum: 2 },
  'tron.tron': { providers: ['trongrid@tron-dao', 'publicnode@allnodes'], quorum: 2 },
  'tron.shasta': { providers: ['trongrid@tron-dao'], quorum: 1 },
  'polygon.polygon': { providers: ['publicnode@allnodes', 'polygon-rpc@polygon-labs', 'tenderly@tenderly'], quorum: 2 },
  'polygon.amoy': { providers: ['publicnode@allnodes', 'polygon-rpc@polygon-labs', 'tenderly@tenderly'], quorum: 2 },
  'bsc.bsc': { providers: ['publicnode@allnodes', 'llamarpc@llamanodes'], quorum: 2 },
  'bsc.bsc-testnet': { providers: ['publicnode@allnodes', 'bnbchain@bnb-chain'], quorum: 2 },
  'ton.ton': { providers: ['toncenter@toncenter'], quorum: 1 },
  'ton.ton-testnet': { providers: ['toncenter@toncenter'], quorum: 1 },
  'ltc.litecoin': { providers: ['litecoinspace.org@litecoin-foundation'], quorum: 1 },
  'ltc.testnet': { providers: ['litecoinspace.org@litecoin-foundation'], quorum: 1 },
  'base.base': { providers: ['publicnode@allnodes', 'base.org@coinbase', 'tenderly@tenderly'], quorum: 2 },
  'base.base-sepolia': { providers: ['publicnode@allnodes', 'base.org@coinbase', 'tenderly@tenderly'], quorum: 2 },
  'ada.cardano': { providers: ['koios@koios'], quorum: 1 },
  'ada.preprod': { providers: ['koios@koios'], quorum: 1 },
  'sol.mainnet-beta': { providers: ['solana-foundation@solana-foundation'], quorum: 1 },
  'sol.devnet': { providers: ['solana-foundation@solana-foundation'], quorum: 1 },
};

/** Networks that only a local node serves (a regtest, a local validator): no public provider. */
const LOCAL_NETWORKS: readonly string[] = ['regtest', 'localnet'];

test('with no watcher configuration, the mainnet and the test network in use of every enabled chain are watched through its public providers, idle until used', (t) => {
  const r = registry();
  t.deepEqual(
    summary(r),
    Object.fromEntries(Object.entries(DEFAULTS).map(([key, { providers, quorum }]) => [key, { origin: 'public', quorum, idle: true, providers }])),
  );
  for (const target of r.list()) {
    const network = [target.adapter.definition.networks.mainnet, ...target.adapter.definition.networks.testnets].find((n) => n.id === target.network)!;
    // The chain's data as it is: URL, kind, limit; each provider is also an attestor on its own.
    t.deepEqual(
      target.providers!.endpoints.map(({ name, url, kind, operator, limit, origin }) => ({ name, url, kind, operator, limit, origin })),
      network.publicProviders!.map(({ name, url, kind, operator, limit }) => ({ name, url, kind, operator, limit, origin: 'public' })),
    );
    t.deepEqual(
      target.attestors!.map((a) => [a.endpoint.name, a.operator, a.watcher !== target.watcher]),
      target.providers!.endpoints.map((e) => [e.name, e.operator, true]),
    );
  }
  // The default chains only, when chains.enabled is not set.
  t.deepEqual(
    registry({}, {})
      .list()
      .map((t) => t.adapter.definition.id)
      .filter((id, i, all) => all.indexOf(id) === i),
    ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton'],
  );
});

test('every network of every chain but the local ones lists public providers, each with an operator, a limit and its source', (t) => {
  for (const { definition } of ALL_CHAINS) {
    for (const network of [definition.networks.mainnet, ...definition.networks.testnets]) {
      const providers: readonly PublicProvider[] = network.publicProviders ?? [];
      if (LOCAL_NETWORKS.includes(network.id)) {
        t.deepEqual(providers, [], `${definition.id}.${network.id}`);
        continue;
      }
      t.true(providers.length > 0, `${definition.id}.${network.id} has public providers`);
      for (const p of providers) {
        t.regex(p.url, /^https:\/\//, `${definition.id}.${network.id} ${p.name}`);
        t.true(p.limit.requestsPerSecond > 0 && p.source.length > 20 && p.operator.length > 0, `${definition.id}.${network.id} ${p.name}`);
      }
    }
  }
});

test('chains.testNetworks moves the default to the chosen test network; regtest has none, so nothing watches it by default', (t) => {
  const chosen = summary(registry({}, { enabled: ['btc', 'tron'], testNetworks: { btc: 'testnet', tron: 'nile' } }));
  t.deepEqual(Object.keys(chosen), ['btc.bitcoin', 'btc.testnet', 'tron.tron', 'tron.nile']);
  t.like(chosen['btc.testnet'], { origin: 'public', quorum: 2, providers: ['mempool.space@mempool-space', 'blockstream.info@blockstream'] });
  t.like(chosen['tron.nile'], { origin: 'public', quorum: 1, providers: ['trongrid@tron-dao'] });
  t.deepEqual(Object.keys(summary(registry({}, { enabled: ['btc'], testNetworks: { btc: 'regtest' } }))), ['btc.bitcoin']);
});

test('publicProviders false watches only the networks under chains', (t) => {
  const own = { providers: [{ name: 'node', url: 'http://127.0.0.1:8545' }] };
  t.deepEqual(summary(registry({ publicProviders: false, chains: { eth: { sepolia: own } } })), {
    'eth.sepolia': { origin: 'configured', quorum: 1, idle: false, providers: ['node@own'] },
  });
  t.deepEqual(registry({ publicProviders: false }).list(), []);
});

test('configured providers replace the defaults (all your own: quorum 1), or join them (more sources: quorum 2)', (t) => {
  const own = [{ name: 'node', url: 'http://127.0.0.1:8545' }];
  const replaced = summary(registry({ chains: { eth: { sepolia: { providers: own } } } }, { enabled: ['eth'] }));
  t.deepEqual(replaced['eth.sepolia'], { origin: 'configured', quorum: 1, idle: false, providers: ['node@own'] });
  // The network not named keeps its defaults.
  t.like(replaced['eth.ethereum'], { origin: 'public', idle: true });
  t.deepEqual(
    summary(registry({ chains: { eth: { sepolia: { providers: own, publicProviders: 'replace' } } } }, { enabled: ['eth'] }))['eth.sepolia'],
    replaced['eth.sepolia'],
  );

  const joined = registry({ chains: { eth: { sepolia: { providers: own, publicProviders: 'join' } } } }, { enabled: ['eth'] }).get('eth', 'sepolia')!;
  t.deepEqual(summary({ list: () => [joined] } as WatcherRegistry)['eth.sepolia'], {
    origin: 'joined',
    quorum: 2,
    idle: false,
    providers: ['node@own', 'publicnode@allnodes', 'tenderly@tenderly'],
  });
  t.deepEqual(
    joined.providers!.endpoints.map((e) => e.origin),
    ['configured', 'public', 'public'],
  );
  t.is(joined.providers!.endpoints[0]!.limit, undefined, 'your own node is not paced');
});

test('a network named without providers is watched through its public ones at once, with its settings; one without public providers is a start-up error', (t) => {
  t.deepEqual(summary(registry({ chains: { btc: { bitcoin: { quorum: 1, scanIntervalSeconds: 60 } } } }, { enabled: ['btc'] }))['btc.bitcoin'], {
    origin: 'public',
    quorum: 1,
    idle: false,
    providers: ['mempool.space@mempool-space', 'blockstream.info@blockstream'],
  });
  t.is(registry({ chains: { btc: { bitcoin: { scanIntervalSeconds: 60 } } } }, { enabled: ['btc'] }).get('btc', 'bitcoin')!.scanIntervalSeconds, 60);
  t.throws(() => registry({ chains: { btc: { regtest: { startHeight: 1 } } } }, { enabled: ['btc'] }), {
    message: 'plugins.watchers.chains.btc.regtest.providers: btc knows no public provider for regtest; configure one',
  });
});

// Review finding 12: said and silently overruled, so refused at start-up naming the key.
test('a network named without providers that sets publicProviders, or named while publicProviders is false, stops start-up naming the key', async (t) => {
  t.throws(() => registry({ chains: { eth: { sepolia: { publicProviders: 'join' } } } }, { enabled: ['eth'] }), {
    message:
      'plugins.watchers.chains.eth.sepolia.publicProviders: "join" needs plugins.watchers.chains.eth.sepolia.providers (the public providers join yours); add your providers, or remove publicProviders to watch through the public ones alone',
  });
  t.throws(() => registry({ chains: { eth: { sepolia: { publicProviders: 'replace', quorum: 1 } } } }, { enabled: ['eth'] }), {
    message:
      /^plugins\.watchers\.chains\.eth\.sepolia\.publicProviders: "replace" needs plugins\.watchers\.chains\.eth\.sepolia\.providers \(yours replace the public ones\)/,
  });
  for (const settings of [{ quorum: 1 }, { startHeight: 5 }, { scanIntervalSeconds: 60 }]) {
    t.throws(() => registry({ publicProviders: false, chains: { btc: { bitcoin: settings } } }, { enabled: ['btc'] }), {
      message:
        'plugins.watchers.chains.btc.bitcoin.providers: plugins.watchers.publicProviders is false, so a network named without providers would still be watched through its public ones; add its providers, or remove plugins.watchers.chains.btc.bitcoin',
    });
  }
  // With providers, both are what they say.
  const own = [{ name: 'node', url: 'http://127.0.0.1:8545' }];
  t.is(registry({ publicProviders: false, chains: { eth: { sepolia: { providers: own, quorum: 1 } } } }, { enabled: ['eth'] }).list().length, 1);
  // A kernel with such a config does not start, and says which key.
  await t.throwsAsync(
    startTestKernel({
      plugins: [...WEBHOOK_PLUGINS, watchersPlugin],
      chains: ALL_CHAINS,
      config: { 'chains.enabled': ['btc'], 'plugins.watchers.chains': { btc: { bitcoin: { quorum: 1 } } } },
    }),
    { message: /plugins\.watchers\.chains\.btc\.bitcoin\.providers: plugins\.watchers\.publicProviders is false/ },
  );
});

test('the quorum: explicit up to the number of operators; above it stops start-up naming the key; operators make configured providers independent', (t) => {
  const own = [{ name: 'node', url: 'http://127.0.0.1:8545' }];
  const three = registry({ chains: { eth: { ethereum: { providers: own, publicProviders: 'join', quorum: 3 } } } }, { enabled: ['eth'] });
  t.is(three.get('eth', 'ethereum')!.quorum, 3);
  t.throws(() => registry({ chains: { eth: { ethereum: { providers: own, publicProviders: 'join', quorum: 5 } } } }, { enabled: ['eth'] }), {
    message:
      "plugins.watchers.chains.eth.ethereum.quorum: 5 independent providers cannot agree where the providers have 4 operator(s); name each provider's operator, add providers, or lower the quorum",
  });
  // Two nodes of your own are one source, whatever their number.
  const twoOwn = [...own, { name: 'node-b', url: 'http://127.0.0.1:8546' }];
  t.throws(() => registry({ chains: { eth: { sepolia: { providers: twoOwn, quorum: 2 } } } }, { enabled: ['eth'] }), {
    message: /^plugins\.watchers\.chains\.eth\.sepolia\.quorum: 2 independent providers cannot agree where the providers have 1 operator\(s\)/,
  });
  // Named operators are independent; the default quorum follows them.
  const keyed = [
    { name: 'alchemy', url: 'https://eth-sepolia.example/v2/key', operator: 'alchemy' },
    { name: 'infura', url: 'https://sepolia.infura.example/v3/key', operator: 'infura' },
  ];
  t.is(registry({ chains: { eth: { sepolia: { providers: keyed } } } }, { enabled: ['eth'] }).get('eth', 'sepolia')!.quorum, 2);
  t.is(registry({ chains: { eth: { sepolia: { providers: keyed, quorum: 1 } } } }, { enabled: ['eth'] }).get('eth', 'sepolia')!.quorum, 1);
  // One public operator: the default quorum is 1, and 2 cannot be had without another provider.
  t.is(registry({}, { enabled: ['ton'] }).get('ton', 'ton')!.quorum, 1);
  t.throws(() => registry({ chains: { ton: { ton: { quorum: 2 } } } }, { enabled: ['ton'] }), {
    message: /^plugins\.watchers\.chains\.ton\.ton\.quorum: 2 independent providers cannot agree where the providers have 1 operator\(s\)/,
  });
});

test('two providers of one name are refused: names label metrics and marks', (t) => {
  t.throws(
    () =>
      registry(
        { chains: { eth: { sepolia: { providers: [{ name: 'publicnode', url: 'http://127.0.0.1:8545' }], publicProviders: 'join' } } } },
        { enabled: ['eth'] },
      ),
    { message: 'plugins.watchers.chains.eth.sepolia.providers: two providers are named publicnode; names label metrics and marks, and must differ' },
  );
  t.throws(
    () =>
      registry(
        {
          chains: {
            eth: {
              sepolia: {
                providers: [
                  { name: 'node', url: 'http://127.0.0.1:8545' },
                  { name: 'node', url: 'http://127.0.0.1:8546' },
                ],
              },
            },
          },
        },
        { enabled: ['eth'] },
      ),
    { message: /two providers are named node/ },
  );
});

/** An Esplora stand-in: serves the recorded tip height under `/api`, 404 elsewhere, and keeps every path it is asked. */
async function countingEsplora(): Promise<{ server: Server; url: string; asked: string[] }> {
  const tip = readFileSync(join(ROOT, 'chains/btc/test/fixtures/mainnet-tip-height.txt'), 'utf8').trim();
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url === '/api/blocks/tip/height') res.writeHead(200, { 'content-type': 'text/plain' }).end(tip);
    else res.writeHead(404).end('Block not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

test('a default network asks its providers nothing until a pool address waits there (an invoice), then they are asked', async (t) => {
  const [a, b] = [await countingEsplora(), await countingEsplora()];
  t.teardown(() => Promise.all([a, b].map(({ server }) => new Promise((resolve) => server.close(resolve)))));
  // Bitcoin as shipped but for where its mainnet's public providers are: the two local servers.
  const { mainnet } = btcChain.definition.networks;
  const local = (name: string, operator: string, url: string): PublicProvider => ({
    ...mainnet.publicProviders!.find((p) => p.name === name)!,
    operator,
    url: `${url}/api`,
  });
  const localBtc = withNetworks(btcChain, {
    mainnet: { ...mainnet, publicProviders: [local('mempool.space', 'mempool-space', a.url), local('blockstream.info', 'blockstream', b.url)] },
  });
  const kernel = await publicProvidersKernel(t, ['btc'], 'cli', localBtc);
  const { watchersRegistry, watchersScanner, tenancyOperators, tenancyProjects, invoicesService, db } = kernel.kernel.cradle;
  const target = watchersRegistry.get('btc', 'bitcoin')!;
  t.like(target, { origin: 'public', quorum: 2, idleUntilUsed: true });

  t.like(await watchersScanner.pass(target), { ran: true, idle: true, transfers: 0 });
  // A production project with a verified key and a full pool: addresses exist, none waits yet.
  const operator = await tenancyOperators.create('defaults', CLI_ACTOR);
  const project = await projectWithPools(kernel, operator.id, ['btc'], 'production');
  t.like(await watchersScanner.pass(target), { ran: true, idle: true });
  t.deepEqual([...a.asked, ...b.asked], [], 'no provider request while no pool address waits');
  t.is(await db('watchers_cursors').where({ chain: 'btc', network: 'bitcoin' }).first(), undefined);

  // An invoice: its address waits on btc mainnet, and the next pass asks the first provider for the tip.
  const principal = (await tenancyProjects.principal(project.projectId))!;
  await invoicesService.create(principal, { external_id: 'first', coin: 'btc', amount_crypto: '0.001' }, CLI_ACTOR);
  const report = await watchersScanner.pass(target);
  t.falsy(report.idle);
  t.is(a.asked[0], '/api/blocks/tip/height');
  // The replay holds nothing beyond the tip: the pass fails over and fails, and is retried later; nothing is written.
  t.truthy(report.error);
  t.true(b.asked.length > 0, 'the second provider was asked once the first failed');
});

// Review finding 10: 14 idle loops each ran a pass every scan interval (1 s on bsc).
test('an idle default network is looked at once a minute, not every scan interval; behind or scanning, as before', (t) => {
  const bsc = registry({}, { enabled: ['bsc'] }).get('bsc', 'bsc')!;
  t.is(bsc.scanIntervalSeconds, 1);
  t.is(nextPassDelaySeconds(bsc, { ran: true, transfers: 0, behind: false, idle: true }), IDLE_PASS_SECONDS);
  t.is(nextPassDelaySeconds(bsc, { ran: true, transfers: 0, behind: false }), 1);
  t.is(nextPassDelaySeconds(bsc, { ran: true, transfers: 0, behind: true }), 0);
  t.is(nextPassDelaySeconds(bsc, { ran: false, transfers: 0, behind: false }), 1);
  // A longer scan interval stays the longer wait.
  const slow = registry({ scanIntervalSeconds: 600 }, { enabled: ['btc'] }).get('btc', 'bitcoin')!;
  t.is(nextPassDelaySeconds(slow, { ran: true, transfers: 0, behind: false, idle: true }), 600);
  // The first pass after idling reads back over the blocks made in the meantime, at the chain's block time.
  const lookback = Object.fromEntries(
    registry()
      .list()
      .map((target) => [`${target.adapter.definition.id}.${target.network}`, idleLookbackBlocks(target)]),
  );
  t.like(lookback, { 'btc.bitcoin': 1, 'eth.ethereum': 5, 'bsc.bsc': 80, 'tron.tron': 20, 'ton.ton': 12, 'ada.cardano': 3, 'polygon.polygon': 30 });
});

test.serial("a started instance's idle loops queue their next look a minute on", async (t) => {
  const kernel = await publicProvidersKernel(t, ['btc', 'bsc', 'tron'], 'all');
  const { db, watchersRegistry } = kernel.kernel.cradle;
  const networks = watchersRegistry.list().map((target) => `${target.adapter.definition.id}:${target.network}`);
  t.deepEqual(networks, ['btc:bitcoin', 'btc:signet', 'tron:tron', 'tron:shasta', 'bsc:bsc', 'bsc:bsc-testnet']);
  // Each loop's first pass (sent at start) found its network idle and queued the next one.
  const queued = await waitFor(async () => {
    const { rows } = await db.raw<{ rows: { singleton_key: string; wait: number }[] }>(
      `select singleton_key, extract(epoch from start_after - created_on)::float8 as wait from pgboss.job
        where name = ? and state = 'created' and exists (select 1 from pgboss.job done where done.name = ? and done.singleton_key = job.singleton_key and done.state = 'completed')`,
      [SCAN_JOB, SCAN_JOB],
    );
    return rows.length === networks.length ? rows : undefined;
  });
  for (const { singleton_key: network, wait } of queued) t.true(wait >= IDLE_PASS_SECONDS - 1, `${network} waits ${wait} s`);
  t.is((await db('watchers_cursors')).length, 0, 'no network was scanned: no provider was asked');
});

test.serial('the first pass of a network that idled reads back over the blocks made while it waited: a payment sent meanwhile is found', async (t) => {
  const anvil = await Anvil.start(11155111);
  t.teardown(() => anvil.stop());
  // Ethereum as shipped but for where Sepolia's public providers are: both are the local node.
  const [sepolia] = ethChain.definition.networks.testnets;
  const localEth = withNetworks(ethChain, {
    testnets: [{ ...sepolia!, publicProviders: sepolia!.publicProviders!.map((p) => ({ ...p, url: anvil.url })) }],
  });
  const kernel = await publicProvidersKernel(t, ['eth'], 'cli', localEth);
  const { watchersRegistry, watchersScanner, tenancyOperators, tenancyProjects, invoicesService, db } = kernel.kernel.cradle;
  const target = watchersRegistry.get('eth', 'sepolia')!;
  t.like(target, { origin: 'public', idleUntilUsed: true });
  t.is(idleLookbackBlocks(target), 5, "a minute of Sepolia's 12 s blocks");
  await anvil.mine(20);
  t.like(await watchersScanner.pass(target), { idle: true });

  // An invoice starts waiting just after that look and is paid; three more blocks come before the next one.
  const operator = await tenancyOperators.create('idle-lookback', CLI_ACTOR);
  const project = await projectWithPools(kernel, operator.id, ['eth'], 'testnet');
  const principal = (await tenancyProjects.principal(project.projectId))!;
  const { invoice } = await invoicesService.create(principal, { external_id: 'paid-while-idle', coin: 'eth', amount_crypto: '0.01' }, CLI_ACTOR);
  await anvil.sendEth((await anvil.accounts())[0]!, invoice.address, parseEther('0.01'));
  const paidIn = await anvil.blockNumber();
  await anvil.mine(3);
  const tip = await anvil.blockNumber();

  const report = await watchersScanner.pass(target);
  t.falsy(report.error);
  t.like(report, { to: tip });
  const read = await db('watchers_blocks').where({ chain: 'eth', network: 'sepolia' }).orderBy('height').pluck('height');
  t.deepEqual(read.map(Number), [tip - 4, tip - 3, tip - 2, tip - 1, tip], 'the tip and the four blocks below it: a minute of 12 s blocks');
  t.like(await db('watchers_transfers').where({ chain: 'eth', network: 'sepolia', to_address: invoice.address }).first(), { block_height: String(paidIn) });
});
