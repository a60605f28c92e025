/**
 * The request budget of providers with a limit (issue 40), against a real PostgreSQL and local
 * HTTP servers that REPLAY RECORDED REAL ESPLORA ANSWERS: the mainnet answers of
 * chains/btc/test/fixtures (`@gw/chain-btc/testing`; the tests read the tip height, and block
 * 828669 with its transaction pages; that folder's README says where each was recorded and which
 * were built from another endpoint's real data). A replay server answers 429 with `Retry-After` when a test tells it to: that answer
 * is the status and the header alone (its body is Esplora's plain text, not read by the pool).
 *
 * The servers stamp each request when it arrives; the tests count requests per window of time
 * at the server (the pace) and look for requests inside a rest. Nothing asserts how fast anything
 * is. Time passing beyond a short rest (the next UTC day) is written into the budget's row, as
 * the scanner tests do with `next_scan_at`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import {
  ProviderError,
  ProviderPool,
  type ChainAdapterDeps,
  type ChainDefinition,
  type NetworkDefinition,
  type ProviderEndpoint,
  type ProviderOutcome,
  type WatchedAddresses,
} from '@gw/kernel';
import { startReplayServer, tooManyRequestsAnswer, waitFor, type TestKernel } from '@gw/kernel/testing';
import { btcChain } from '@gw/chain-btc';
import { esploraHandler, MAIN_828669, recordedEsploraAnswers } from '@gw/chain-btc/testing';
import { ALL_CHAINS } from '@gw/testing';
import { budgetScopeOf, type ProviderUsage } from '../src/index.js';
import { startWatchersKernel } from './scenario.js';

interface Received {
  readonly path: string;
  /** Arrival, milliseconds since the epoch (the machine's clock, which PostgreSQL's shares). */
  readonly at: number;
  readonly status: number;
}

interface BudgetedReplay {
  readonly url: string;
  readonly received: Received[];
  /** Requests (1-based, counted over the server's life) answered 429 with `retryAfter`. */
  tooMany: Set<number>;
  retryAfter: string;
  close(): Promise<void>;
}

/**
 * An Esplora replay of the recorded mainnet answers (as chains/btc/src/watcher.test.ts serves them) that answers 429 when told to.
 * With `signet`, it also serves them under `/signet`, as mempool.space serves signet's Esplora beside mainnet's on one host (the
 * answers there are mainnet's: the budget is under test, not what a signet block holds).
 */
async function replayServer(options: { signet?: boolean } = {}): Promise<BudgetedReplay> {
  const esplora = esploraHandler(recordedEsploraAnswers('mainnet'));
  const state = { received: [] as Received[], tooMany: new Set<number>(), retryAfter: '1' };
  const server = await startReplayServer('', (request) => {
    const below = options.signet && request.path.startsWith('/signet/') ? { ...request, path: request.path.slice('/signet'.length) } : request;
    const answer = state.tooMany.has(state.received.length + 1) ? tooManyRequestsAnswer({ 'retry-after': state.retryAfter }) : esplora(below)!;
    state.received.push({ path: request.path, at: request.at, status: answer.status });
    return answer;
  });
  return Object.assign(state, { url: server.url, close: () => server.close() });
}

const adapter = btcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, btcChain.definition);
const MAINNET = btcChain.definition.networks.mainnet;
const watcherOf = (pool: ProviderPool) => adapter.createWatcher({ network: MAINNET, providers: pool });

/** The most requests among `received` that arrived within any `windowMs` (a window starting at each arrival). */
function mostInWindow(received: readonly Received[], windowMs: number): number {
  const times = received.map((r) => r.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

/**
 * The bound of requests within `windowMs` paced at `perSecond`: one at the window's start and one
 * per step after it, and one more that a delay on its way (this machine's load) put into the
 * window beside the next one. Sent unpaced, the requests of these tests arrive all at once.
 */
const paceBound = (perSecond: number, windowMs: number) => 1 + Math.floor((perSecond * windowMs) / 1000) + 1;

/** Calls `ask` from `loops` concurrent loops until `server` received `requests`; counts the calls refused as rate_limited. */
async function hammer(server: BudgetedReplay, requests: number, loops: number, ask: (loop: number) => Promise<unknown>) {
  const answered = Array.from({ length: loops }, () => 0);
  let refused = 0;
  await Promise.all(
    answered.map(async (_, loop) => {
      while (server.received.length < requests) {
        try {
          await ask(loop);
          answered[loop]!++;
        } catch (error) {
          if (!(error instanceof ProviderError) || error.failure !== 'rate_limited') throw error;
          refused++;
          // A resting provider answers at once; a real caller (the scan loop) would come back later too.
          await sleep(50);
        }
      }
    }),
  );
  return { answered, refused };
}

let gw: TestKernel;

test.before(async () => {
  // No network is watched: the tests build their pools over the kernel's budget themselves.
  gw = await startWatchersKernel({}, { 'plugins.watchers.publicProviders': false }, { role: 'cli' });
});
test.after.always(() => gw?.close());

/** A pool of `endpoints` for btc on `network` (5 s timeout) that spends the kernel's request budget of that network. */
const budgetedPool = (endpoints: ProviderEndpoint[], network = 'bitcoin') =>
  new ProviderPool({ chain: 'btc', network, endpoints, timeoutMs: 5000, budget: gw.kernel.cradle.watchersBudget.forNetwork('btc', network) });

const usageOf = async (kernel: TestKernel, provider: string): Promise<ProviderUsage | undefined> =>
  (await kernel.kernel.cradle.watchersProviderUsage.list()).find((u) => u.provider === provider);
const gaugeOf = async (kernel: TestKernel, name: string, provider: string): Promise<number | undefined> => {
  const metric = await kernel.kernel.cradle.metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.find((v) => v.labels['provider'] === provider)?.value;
};
/** The budget row a provider (of any network) draws on. */
const rowOf = (kernel: TestKernel, provider: string) =>
  kernel.kernel.cradle
    .db('watchers_provider_budgets as b')
    .join('watchers_provider_budget_users as u', 'u.scope', 'b.scope')
    .where('u.provider', provider)
    .first('b.*');

test.serial(
  'a 429 with Retry-After rests the provider: nothing reaches it during the rest, the other provider carries on the scan, and its rate holds the documented limit',
  async (t) => {
    const [a, b] = await Promise.all([replayServer(), replayServer()]);
    t.teardown(() => Promise.all([a.close(), b.close()]));
    // A public provider documented at 10 requests a second: the gateway allows itself publicLimitShare (0.5) of it.
    const limit = { requestsPerSecond: 10 };
    const A: ProviderEndpoint = { name: 'esplora-a', url: a.url, operator: 'a', origin: 'public', limit };
    const B: ProviderEndpoint = { name: 'esplora-b', url: b.url, operator: 'b', origin: 'public', limit };
    const budget = gw.kernel.cradle.watchersBudget.forNetwork('btc', 'bitcoin');
    const outcomes: ProviderOutcome[] = [];
    const poolOf = (endpoints: ProviderEndpoint[]) =>
      new ProviderPool({ chain: 'btc', network: 'bitcoin', endpoints, timeoutMs: 5000, budget, onOutcome: (o) => outcomes.push(o) });

    // The first provider answers 429, Retry-After 5 s.
    a.tooMany = new Set([1]);
    a.retryAfter = '5';
    const scanning = poolOf([A, B]);
    t.deepEqual(await watcherOf(scanning).head(), { height: 698767 }, 'the tip, from the second provider');
    t.deepEqual(
      a.received.map((r) => r.status),
      [429],
    );
    const rested = a.received[0]!.at;
    t.is((await rowOf(gw, 'esplora-a')).pace, 5, 'paced at the documented limit times publicLimitShare');

    const usage = (await usageOf(gw, 'esplora-a'))!;
    t.truthy(usage.restingUntil, 'resting');
    t.true(usage.restingUntil!.getTime() >= rested + 5000, `rests for the Retry-After: ${usage.restingUntil!.toISOString()}`);
    t.is(await gaugeOf(gw, 'gateway_watcher_provider_resting', 'esplora-a'), 1);
    t.is(await gaugeOf(gw, 'gateway_watcher_provider_resting', 'esplora-b'), 0);

    // During the rest: the attestor of the first provider is refused without a request, and a
    // new pass (a pool that starts with the first provider again) scans through the second.
    const alone = scanning.single(A);
    const refused = await t.throwsAsync(watcherOf(alone).head(), { instanceOf: ProviderError });
    t.is(refused.failure, 'rate_limited');
    t.regex(refused.message, /not sent, esplora-a rests until/);
    outcomes.length = 0;
    const address = 'bc1qehqumchyz76cd0t3faj2ls7hmm6pk6c45h4l9c';
    const watched: WatchedAddresses = { filter: async (candidates) => new Set(candidates.filter((c) => c === address)), active: async () => [address] };
    const [block] = await watcherOf(poolOf([A, B])).scan(828669, 828669, watched);
    t.is(block!.hash, MAIN_828669);
    t.deepEqual(
      block!.transfers.map((tr) => [tr.txHash, tr.outputIndex, tr.amountUnits]),
      [['0dbf4436b3493c08b85f11755f672f2b40beddb8f2b65c6bb1e68074c85b53f3', 0, 294n]],
    );
    t.deepEqual(
      outcomes.filter((o) => o.provider === 'esplora-a').map((o) => o.outcome),
      ['rate_limited'],
      'the pass met the rest once and moved on',
    );
    t.true(
      outcomes.filter((o) => o.provider === 'esplora-b').every((o) => o.outcome === 'ok'),
      'the second provider carried the scan',
    );
    t.is(a.received.length, 1, 'nothing was sent to the resting provider');

    // The rest ends by itself; the provider is asked again, not before its Retry-After.
    await waitFor(async () => (await usageOf(gw, 'esplora-a'))!.restingUntil === null, 20_000, 'the end of the rest');
    t.deepEqual(await watcherOf(alone).head(), { height: 698767 });
    t.is(a.received.length, 2);
    t.true(a.received[1]!.at >= rested + 5000, 'no request inside the rest');

    // Under load from four callers, with two more 429s (Retry-After 1 s) on the way: the requests
    // it receives hold the pace (5 a second), and none arrives inside a rest.
    const before = a.received.length;
    a.tooMany = new Set([before + 8, before + 16]);
    a.retryAfter = '1';
    const load = await hammer(a, before + 25, 4, () => watcherOf(alone).head());
    const received = a.received.slice(before);
    t.true(
      load.answered.every((n) => n > 0),
      `every caller got answers: ${load.answered.join(', ')}`,
    );
    t.true(load.refused > 0, 'callers met the rests and were refused without a request');
    for (const tooMany of received.filter((r) => r.status === 429)) {
      t.deepEqual(
        received.filter((r) => r.at > tooMany.at && r.at < tooMany.at + 1000),
        [],
        'no request within the second after a 429 with Retry-After 1',
      );
    }
    t.is(received.filter((r) => r.status === 429).length, 2);
    for (const windowMs of [1000, 2000]) {
      const most = mostInWindow(received, windowMs);
      t.true(most <= paceBound(5, windowMs), `at most ${paceBound(5, windowMs)} requests within ${windowMs} ms, got ${most}`);
    }
    t.is((await usageOf(gw, 'esplora-a'))!.lastMinute, a.received.length, 'every request counted for the last minute');
  },
);

test.serial('two instances share one budget: together they hold the pace, and a 429 one of them met rests the provider for both', async (t) => {
  const [a, own] = await Promise.all([replayServer(), replayServer()]);
  t.teardown(() => Promise.all([a.close(), own.close()]));
  // A keyed provider configured with its own limit (4 a second, no share taken off), and an own node without one.
  const watching = {
    btc: {
      bitcoin: {
        providers: [
          { name: 'esplora-keyed', url: a.url, operator: 'keyed', limit: { requestsPerSecond: 4 } },
          { name: 'own-esplora', url: own.url },
        ],
        quorum: 1,
      },
    },
  };
  const settings = { 'plugins.watchers.publicProviders': false, 'plugins.watchers.scanIntervalSeconds': 3600 };
  const first = await startWatchersKernel(watching, settings, { role: 'cli' });
  t.teardown(() => first.close());
  const second = await startWatchersKernel(watching, settings, { role: 'cli', database: first.database });
  t.teardown(() => second.close());
  const targets = [first, second].map((k) => k.kernel.cradle.watchersRegistry.get('btc', 'bitcoin')!);
  const keyed = targets.map((target) => target.providers!.single(target.providers!.endpoints[0]!));

  // Two callers in each instance.
  const load = await hammer(a, 24, 4, (loop) => watcherOf(keyed[loop % 2]!).head());
  t.true(load.answered[0]! + load.answered[2]! > 0 && load.answered[1]! + load.answered[3]! > 0, `both instances were answered: ${load.answered.join(', ')}`);
  for (const windowMs of [1000, 2000]) {
    const most = mostInWindow(a.received, windowMs);
    t.true(most <= paceBound(4, windowMs), `at most ${paceBound(4, windowMs)} requests within ${windowMs} ms from both instances, got ${most}`);
  }
  const row = await rowOf(first, 'esplora-keyed');
  t.is(row.pace, 4, 'a configured provider is paced at its own limit');
  const usage = (await usageOf(second, 'esplora-keyed'))!;
  t.is(usage.lastMinute, a.received.length, 'the second instance reads what both sent');
  t.is(usage.today, a.received.length);
  t.is(usage.shareOfLimit, a.received.length / (4 * 60));
  t.is(await gaugeOf(first, 'gateway_watcher_provider_limit_share', 'esplora-keyed'), usage.shareOfLimit);

  // The own node (no limit) is asked through the same pools without any budget row.
  t.deepEqual(
    await targets[0]!.providers!.single(targets[0]!.providers!.endpoints[1]!).run('head', (http) => http.text('GET', '/blocks/tip/height')),
    '698767',
  );
  t.is(own.received.length, 1);
  t.is(await rowOf(first, 'own-esplora'), undefined, 'no database work for a provider without a limit');

  // The first instance meets a 429 (Retry-After 60 s): the second does not send to it, and its
  // scanning pool carries on through the own node.
  a.tooMany = new Set([a.received.length + 1]);
  a.retryAfter = '60';
  const sent = a.received.length;
  await t.throwsAsync(watcherOf(keyed[0]!).head(), { instanceOf: ProviderError, message: /429/ });
  const refused = await t.throwsAsync(watcherOf(keyed[1]!).head(), { instanceOf: ProviderError });
  t.regex(refused.message, /not sent, esplora-keyed rests until/);
  t.is(a.received.length, sent + 1, 'only the 429 reached it');
  t.deepEqual(await targets[1]!.watcher.head(), { height: 698767 });
  t.is(a.received.length, sent + 1);
  t.is(own.received.length, 2, 'the own node answered the second instance');
});

test.serial('the day cap rests a provider until 00:00 UTC, and it is asked again the next day', async (t) => {
  const a = await replayServer();
  t.teardown(() => a.close());
  // Documented at 6 requests a day: publicLimitShare (0.5) of it is 3.
  const A: ProviderEndpoint = { name: 'esplora-daily', url: a.url, operator: 'daily', origin: 'public', limit: { requestsPerSecond: 50, requestsPerDay: 6 } };
  const pool = budgetedPool([A]);
  const watcher = watcherOf(pool);
  for (let i = 0; i < 3; i++) t.deepEqual(await watcher.head(), { height: 698767 });
  const refused = await t.throwsAsync(watcher.head(), { instanceOf: ProviderError });
  t.is(refused.failure, 'rate_limited');
  t.is(a.received.length, 3, 'the fourth request of the day was not sent');

  const { rows } = await gw.kernel.cradle.db.raw<{ rows: { tomorrow: Date }[] }>(
    `select ((clock_timestamp() at time zone 'UTC')::date + 1)::timestamp at time zone 'UTC' as tomorrow`,
  );
  const usage = (await usageOf(gw, 'esplora-daily'))!;
  t.is(usage.today, 3);
  t.is(usage.shareOfLimit, 1);
  t.deepEqual(usage.restingUntil, rows[0]!.tomorrow, 'rests until the next UTC day');
  t.regex(refused.message, new RegExp(`rests until ${rows[0]!.tomorrow.toISOString().replace(/\./g, '\\.')}`));
  t.is(await gaugeOf(gw, 'gateway_watcher_provider_resting', 'esplora-daily'), 1);

  // The next UTC day: the row's count is yesterday's.
  await gw.kernel.cradle
    .db('watchers_provider_budgets')
    .where({ scope: (await rowOf(gw, 'esplora-daily')).scope })
    .update({ day: gw.kernel.cradle.db.raw(`day - 1`) });
  t.deepEqual(await watcher.head(), { height: 698767 });
  t.is(a.received.length, 4);
  const next = (await usageOf(gw, 'esplora-daily'))!;
  t.is(next.today, 1);
  t.is(next.restingUntil, null);
});

test.serial('a request whose turn is further off than the pool waits is not sent: the next provider answers', async (t) => {
  const [slow, other] = await Promise.all([replayServer(), replayServer()]);
  t.teardown(() => Promise.all([slow.close(), other.close()]));
  // Documented at one request in 10 s: a public provider is then asked once in 20 s, beyond the 10 s a request may wait.
  const S: ProviderEndpoint = { name: 'esplora-slow', url: slow.url, operator: 'slow', origin: 'public', limit: { requestsPerSecond: 0.1 } };
  const O: ProviderEndpoint = { name: 'esplora-other', url: other.url, operator: 'other', origin: 'public', limit: { requestsPerSecond: 10 } };
  const pool = budgetedPool([S, O]);
  const alone = pool.single(S);
  t.deepEqual(await watcherOf(alone).head(), { height: 698767 });
  const refused = await t.throwsAsync(watcherOf(alone).head(), { instanceOf: ProviderError });
  t.is(refused.failure, 'rate_limited');
  t.regex(refused.message, /not sent/);
  t.deepEqual(await watcherOf(pool).head(), { height: 698767 }, 'the failover pool moves on to the next provider');
  t.is(slow.received.length, 1);
  t.is(other.received.length, 1);
  t.is((await usageOf(gw, 'esplora-slow'))!.restingUntil, null, 'paced, not resting');
});

test.serial(
  'two networks of one public host share one budget: together they hold its pace, a 429 met on one rests the other, and each network reads the shared figures',
  async (t) => {
    const [host, other] = await Promise.all([replayServer({ signet: true }), replayServer()]);
    t.teardown(() => Promise.all([host.close(), other.close()]));
    // One public operator's host serving mainnet under / and signet under /signet, documented at 10 requests a second: 5 for the gateway, for both networks together.
    const limit = { requestsPerSecond: 10 };
    const M: ProviderEndpoint = { name: 'shared-host', url: host.url, operator: 'host-co', origin: 'public', limit };
    const S: ProviderEndpoint = { name: 'shared-host', url: `${host.url}/signet`, operator: 'host-co', origin: 'public', limit };
    const O: ProviderEndpoint = { name: 'other-host', url: other.url, operator: 'other-co', origin: 'public', limit };
    const mainnet = watcherOf(budgetedPool([M]));
    const signet = watcherOf(budgetedPool([S], 'signet'));

    // Two callers on each network: the host receives them at one pace, as one client would send them.
    const load = await hammer(host, 24, 4, (loop) => (loop % 2 === 0 ? mainnet : signet).head());
    t.true(load.answered[0]! + load.answered[2]! > 0 && load.answered[1]! + load.answered[3]! > 0, `both networks were answered: ${load.answered.join(', ')}`);
    t.true(host.received.some((r) => r.path.startsWith('/signet/')) && host.received.some((r) => !r.path.startsWith('/signet/')));
    for (const windowMs of [1000, 2000]) {
      const most = mostInWindow(host.received, windowMs);
      t.true(most <= paceBound(5, windowMs), `at most ${paceBound(5, windowMs)} requests within ${windowMs} ms from both networks, got ${most}`);
    }

    // Each network's provider answers the usage read, with the figures of the host they share.
    const scope = new URL(host.url).host;
    const usage = (await gw.kernel.cradle.watchersProviderUsage.list()).filter((u) => u.provider === 'shared-host');
    t.deepEqual(
      usage.map((u) => [u.network, u.scope, u.lastMinute]),
      [
        ['bitcoin', scope, host.received.length],
        ['signet', scope, host.received.length],
      ],
    );
    t.is((await gw.kernel.cradle.db('watchers_provider_budgets').where({ scope })).length, 1, 'one budget row for the host');

    // Another host has a budget of its own.
    t.deepEqual(await watcherOf(budgetedPool([O])).head(), { height: 698767 });
    t.is((await rowOf(gw, 'other-host')).scope, new URL(other.url).host);

    // A 429 met on mainnet rests the host for signet too.
    host.tooMany = new Set([host.received.length + 1]);
    host.retryAfter = '60';
    const sent = host.received.length;
    await t.throwsAsync(mainnet.head(), { instanceOf: ProviderError, message: /429/ });
    const refused = await t.throwsAsync(signet.head(), { instanceOf: ProviderError });
    t.regex(refused.message, /not sent, shared-host rests until/);
    t.is(host.received.length, sent + 1, 'only the 429 reached the host');
    t.true((await gw.kernel.cradle.watchersProviderUsage.list()).filter((u) => u.provider === 'shared-host').every((u) => u.restingUntil !== null));
  },
);

test.serial('a request of N calls takes N turns: counted N, the next request waits for them, and one that would pass the day cap is not sent', async (t) => {
  const a = await replayServer();
  t.teardown(() => a.close());
  // Configured at 4 requests a second and 30 a day (its own limit, no share taken off).
  const A: ProviderEndpoint = {
    name: 'batched',
    url: a.url,
    operator: 'batched-co',
    origin: 'configured',
    limit: { requestsPerSecond: 4, requestsPerDay: 30 },
  };
  const pool = budgetedPool([A]);
  const tip = (calls: number) => pool.run('head', (http) => http.text('GET', '/blocks/tip/height', { calls }));

  t.is(await tip(8), '698767');
  const after = await rowOf(gw, 'batched');
  t.is(after.day_count, 8, 'the eight calls counted');
  t.is((await usageOf(gw, 'batched'))!.lastMinute, 8);
  t.is(await tip(1), '698767');
  // The first request went at its turn and took the seven after it: the second went 2 s (8 / 4) after the first's turn at the
  // earliest (one call's turn would be 250 ms; the slack is the first request's own way to the server).
  t.true(
    a.received[1]!.at - a.received[0]!.at >= 1500,
    `the second request waited for the batch's calls: ${a.received[1]!.at - a.received[0]!.at} ms after the first`,
  );
  t.is((await rowOf(gw, 'batched')).day_count, 9);

  // 21 calls left of the day's 30: a batch of 22 is not sent (the provider rests until 00:00 UTC); one of 21 is, and uses the day up.
  const refused = await t.throwsAsync(tip(22), { instanceOf: ProviderError });
  t.is(refused.failure, 'rate_limited');
  t.regex(refused.message, /not sent, batched rests until/);
  t.is(a.received.length, 2);
  t.is((await rowOf(gw, 'batched')).day_count, 9, 'nothing counted for the request not sent');
  t.is(await tip(21), '698767');
  t.is((await rowOf(gw, 'batched')).day_count, 30);
  await t.throwsAsync(tip(1), { instanceOf: ProviderError, message: /not sent, batched rests until/ });
  t.is(a.received.length, 3);
});

test('budget scopes of the chains` public providers: one host serves several networks under one limit, PublicNode one limit across its hosts', (t) => {
  const scopeOf = (definition: ChainDefinition, network: NetworkDefinition, name: string) => {
    const p = network.publicProviders!.find((provider) => provider.name === name)!;
    const endpoint: ProviderEndpoint = {
      name: p.name,
      url: p.url,
      operator: p.operator,
      limit: p.limit,
      origin: 'public',
      ...(p.limitScope ? { limitScope: p.limitScope } : {}),
    };
    return budgetScopeOf(definition.id, network.id, endpoint);
  };
  const btc = btcChain.definition;
  const [signet, testnet] = btc.networks.testnets;
  t.is(scopeOf(btc, btc.networks.mainnet, 'mempool.space'), 'mempool.space');
  t.is(scopeOf(btc, signet!, 'mempool.space'), 'mempool.space');
  t.is(scopeOf(btc, testnet!, 'blockstream.info'), 'blockstream.info');
  const publicnode = ALL_CHAINS.flatMap((chain) =>
    [chain.definition.networks.mainnet, ...chain.definition.networks.testnets].flatMap((network) =>
      (network.publicProviders ?? [])
        .filter((p) => p.name === 'publicnode')
        .map(() => `${chain.definition.id}.${network.id} ${scopeOf(chain.definition, network, 'publicnode')}`),
    ),
  );
  t.true(publicnode.length >= 6, publicnode.join(', '));
  t.true(
    publicnode.every((entry) => entry.endsWith(' publicnode.com')),
    publicnode.join(', '),
  );
  t.true(
    publicnode.some((entry) => entry.startsWith('tron.')),
    'TRON`s PublicNode endpoint draws on the same budget as the EVM ones',
  );
  // A configured provider's budget is its own on its network.
  t.is(
    budgetScopeOf('btc', 'bitcoin', { name: 'node', url: 'https://mempool.space/api', limit: { requestsPerSecond: 1 }, origin: 'configured' }),
    'btc/bitcoin/node',
  );
});
