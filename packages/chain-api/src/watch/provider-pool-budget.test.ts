/**
 * `ProviderPool` with a `ProviderBudget` (issue 40): what the pool asks the budget and when, and
 * what it sends to the providers. The providers are local HTTP servers (the chain contract's
 * `startReplayServer`, node:http on 127.0.0.1) that count what they receive; their bodies do not matter here (the pool's logic is under test,
 * not a provider's API: the watchers' tests replay recorded provider answers). The budget is a
 * recording one written for this test, since the real one lives in the watchers plugin
 * (PostgreSQL, `plugins/watchers/test/provider-budget.test.ts`), which this package cannot use.
 */
import test, { type ExecutionContext } from 'ava';
import { jsonAnswer, startReplayServer, tooManyRequestsAnswer } from '../testing/replay-server.js';
import {
  callsPerRequest,
  parseRetryAfter,
  ProviderError,
  ProviderPool,
  WatcherLocalError,
  type ProviderBudget,
  type ProviderEndpoint,
  type ProviderOutcome,
} from './provider-pool.js';

interface Provider {
  readonly url: string;
  /** Paths received, in order. */
  readonly requests: string[];
  /** What it answers next: 200 with a small JSON body, or 429 with these headers. */
  answer: { readonly status: 200 } | { readonly status: 429; readonly headers: Record<string, string> };
  close(): Promise<void>;
}

async function provider(): Promise<Provider> {
  const state = { requests: [] as string[], answer: { status: 200 } as Provider['answer'] };
  const server = await startReplayServer('', ({ path }) => {
    state.requests.push(path);
    return state.answer.status === 429 ? tooManyRequestsAnswer(state.answer.headers) : jsonAnswer('{"height":1}');
  });
  return Object.assign(state, { url: server.url, close: () => server.close() });
}

/** A budget that records every call and rests the endpoints named in `resting`. */
class RecordingBudget implements ProviderBudget {
  readonly calls: string[] = [];
  readonly resting = new Map<string, Date>();
  failing = false;

  async acquire(endpoint: ProviderEndpoint, calls?: number): Promise<{ readonly restingUntil?: Date }> {
    this.calls.push(calls === undefined || calls === 1 ? `acquire ${endpoint.name}` : `acquire ${endpoint.name} ${calls} calls`);
    if (this.failing) throw new Error('connection refused');
    const until = this.resting.get(endpoint.name);
    return until === undefined ? {} : { restingUntil: until };
  }
  async rateLimited(endpoint: ProviderEndpoint, retryAfterMs: number | undefined): Promise<void> {
    this.calls.push(`rateLimited ${endpoint.name} ${retryAfterMs ?? 'none'}`);
  }
  async answered(endpoint: ProviderEndpoint): Promise<void> {
    this.calls.push(`answered ${endpoint.name}`);
  }
}

const LIMIT = { requestsPerSecond: 5 };

/** Two public endpoints with a limit, `public-a` on the first provider and `public-b` on the second. */
const TWO_PUBLIC = ([a, b]: string[]): ProviderEndpoint[] => [
  { name: 'public-a', url: a!, limit: LIMIT, origin: 'public' },
  { name: 'public-b', url: b!, limit: LIMIT, origin: 'public' },
];

/** Two providers, a recording budget, and a pool over the `endpoints` made of their URLs; closed when `t` ends. */
async function setup(t: ExecutionContext, endpoints: (url: string[]) => ProviderEndpoint[]) {
  const a = await provider();
  const b = await provider();
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const budget = new RecordingBudget();
  const outcomes: ProviderOutcome[] = [];
  const pool = new ProviderPool({
    chain: 'btc',
    network: 'bitcoin',
    endpoints: endpoints([a.url, b.url]),
    timeoutMs: 5000,
    budget,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  return { a, b, budget, outcomes, pool };
}

/** A call of two requests, as a watcher's block read (the block, then its transactions). */
const twoRequests = (pool: ProviderPool) =>
  pool.run('scan', async (http) => {
    await http.json('GET', '/block/1');
    return http.json('GET', '/block/1/txs/0');
  });

test('an endpoint without a limit (an own node) never reaches the budget', async (t) => {
  const s = await setup(t, ([a]) => [{ name: 'own', url: a! }]);
  await twoRequests(s.pool);
  t.deepEqual(s.a.requests, ['/block/1', '/block/1/txs/0']);
  t.deepEqual(s.budget.calls, [], 'no acquire, no answered: no database work for an own node');
});

test('each request to an endpoint with a limit takes its turn first and reports its answer', async (t) => {
  const s = await setup(t, ([a]) => [{ name: 'public-a', url: a!, limit: LIMIT, origin: 'public' }]);
  t.deepEqual(await twoRequests(s.pool), { height: 1 });
  t.deepEqual(s.a.requests, ['/block/1', '/block/1/txs/0']);
  t.deepEqual(s.budget.calls, ['acquire public-a', 'answered public-a', 'acquire public-a', 'answered public-a']);
});

test('a request takes one turn per call it carries: a JSON-RPC batch its length, or what the caller says', async (t) => {
  const s = await setup(t, ([a]) => [{ name: 'public-a', url: a!, limit: LIMIT, origin: 'public' }]);
  const batch = Array.from({ length: 22 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_getBlockByNumber', params: [`0x${id.toString(16)}`, true] }));
  await s.pool.run('scan', async (http) => {
    await http.json('POST', '', { body: batch });
    await http.json('POST', '', { body: { jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] } });
    await http.json('POST', '/tx_info', { body: { _tx_hashes: ['a', 'b', 'c'] }, calls: 3 });
    return http.json('POST', '', { body: [] });
  });
  t.deepEqual(s.budget.calls, [
    'acquire public-a 22 calls',
    'answered public-a',
    'acquire public-a',
    'answered public-a',
    'acquire public-a 3 calls',
    'answered public-a',
    'acquire public-a',
    'answered public-a',
  ]);
  t.is(s.a.requests.length, 4);
});

test('callsPerRequest: a paced endpoint takes at most its requests per second in one request, one at least; an own node takes them all', (t) => {
  const at = (requestsPerSecond: number): ProviderEndpoint => ({ name: 'p', url: 'http://127.0.0.1:1', limit: { requestsPerSecond } });
  t.is(callsPerRequest(at(5), 22), 5);
  t.is(callsPerRequest(at(2.5), 22), 2);
  t.is(callsPerRequest(at(0.1), 22), 1);
  t.is(callsPerRequest(at(100), 22), 22);
  t.is(callsPerRequest({ name: 'own', url: 'http://127.0.0.1:1' }, 22), 22);
});

test('a resting endpoint is skipped as rate_limited with no request sent; the next one answers', async (t) => {
  const s = await setup(t, TWO_PUBLIC);
  s.budget.resting.set('public-a', new Date('2030-01-01T00:00:00Z'));
  t.deepEqual(await twoRequests(s.pool), { height: 1 });
  t.deepEqual(s.a.requests, [], 'nothing sent to the resting provider');
  t.deepEqual(s.b.requests, ['/block/1', '/block/1/txs/0']);
  t.like(s.outcomes[0], { provider: 'public-a', outcome: 'rate_limited' });
  t.regex(s.outcomes[0]!.error!, /GET \/block\/1: not sent, public-a rests until 2030-01-01T00:00:00.000Z/);
  t.like(s.outcomes[1], { provider: 'public-b', outcome: 'ok' });
  t.false(
    s.budget.calls.some((c) => c.startsWith('rateLimited')),
    'a rest is not a 429: it does not lengthen itself',
  );
});

test('a 429 rests the endpoint with its Retry-After (seconds or a date), or none; the next endpoint carries on', async (t) => {
  const s = await setup(t, ([a, b]) => [
    { name: 'public-a', url: a!, limit: LIMIT, origin: 'public' },
    { name: 'own', url: b! },
  ]);
  s.a.answer = { status: 429, headers: { 'retry-after': '7' } };
  t.deepEqual(await twoRequests(s.pool), { height: 1 });
  t.deepEqual(s.budget.calls, ['acquire public-a', 'rateLimited public-a 7000']);
  t.is(s.a.requests.length, 1, 'the call moved on at the 429');
  t.deepEqual(s.b.requests, ['/block/1', '/block/1/txs/0'], 'the own node carried the call, without the budget');
  t.like(s.outcomes[0], { provider: 'public-a', outcome: 'rate_limited' });

  const asA = s.pool.single(s.pool.endpoints[0]!);
  s.budget.calls.length = 0;
  s.a.answer = { status: 429, headers: {} };
  const error = await t.throwsAsync(twoRequests(asA), { instanceOf: ProviderError });
  t.is(error.failure, 'rate_limited');
  t.deepEqual(s.budget.calls, ['acquire public-a', 'rateLimited public-a none'], 'no Retry-After: the budget backs off by itself');

  s.budget.calls.length = 0;
  s.a.answer = { status: 429, headers: { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() } };
  await t.throwsAsync(twoRequests(asA));
  const [, rested] = s.budget.calls;
  const ms = Number(rested!.split(' ')[2]);
  t.true(ms > 3_500_000 && ms <= 3_600_000, `an HTTP date in an hour: ${rested}`);
});

test('single() shares the budget: the pool of one endpoint paces and rests it too', async (t) => {
  const s = await setup(t, TWO_PUBLIC);
  const alone = s.pool.single(s.pool.endpoints[1]!);
  t.is(alone.options.budget, s.budget);
  s.budget.resting.set('public-b', new Date('2030-01-01T00:00:00Z'));
  const error = await t.throwsAsync(
    alone.run('head', (http) => http.json('GET', '/blocks/tip/height')),
    { instanceOf: ProviderError },
  );
  t.is(error.failure, 'rate_limited');
  t.deepEqual(s.b.requests, []);
});

test('every endpoint resting: the call fails rate_limited and nothing is sent', async (t) => {
  const s = await setup(t, TWO_PUBLIC);
  s.budget.resting.set('public-a', new Date('2030-01-01T00:00:00Z'));
  s.budget.resting.set('public-b', new Date('2030-01-02T00:00:00Z'));
  const error = await t.throwsAsync(twoRequests(s.pool), { instanceOf: ProviderError });
  t.is(error.failure, 'rate_limited');
  t.is(error.provider, 'public-b');
  t.deepEqual([...s.a.requests, ...s.b.requests], []);
  t.deepEqual(
    s.outcomes.map((o) => `${o.provider} ${o.outcome}`),
    ['public-a rate_limited', 'public-b rate_limited'],
  );
});

test('a budget that cannot be read is the gateway`s own failure: thrown at once, not counted against the provider', async (t) => {
  const s = await setup(t, TWO_PUBLIC);
  s.budget.failing = true;
  await t.throwsAsync(twoRequests(s.pool), { instanceOf: WatcherLocalError, message: /request budget of public-a is not available: connection refused/ });
  t.deepEqual([...s.a.requests, ...s.b.requests], []);
  t.deepEqual(s.budget.calls, ['acquire public-a'], 'the next provider is not asked either');
  t.deepEqual(s.outcomes, []);
});

test('Retry-After: delay-seconds or an HTTP date in the future; anything else is none', (t) => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  t.is(parseRetryAfter('120', now), 120_000);
  t.is(parseRetryAfter(' 1 ', now), 1000);
  t.is(parseRetryAfter('Sun, 01 Mar 2026 12:00:30 GMT', now), 30_000);
  t.is(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now), undefined, 'a date in the past');
  t.is(parseRetryAfter('0', now), undefined);
  t.is(parseRetryAfter('-5', now), undefined);
  t.is(parseRetryAfter('soon', now), undefined);
  t.is(parseRetryAfter(null, now), undefined);
});
