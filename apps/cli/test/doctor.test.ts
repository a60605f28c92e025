import test, { type ExecutionContext } from 'ava';
import { chains, plugins } from '@gw/app-gateway';
import { createTestDatabase, startTestKernel, type TestDatabase } from '@gw/kernel/testing';
import { hostname } from 'node:os';
import pg from 'pg';
import { cliRunner, ethWallet, tronWallet } from '@gw/testing';
import { runCli } from '../src/cli.js';

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

let overrides: Record<string, unknown> = {};
const cli = cliRunner({ plugins, chains, databaseUrl: () => database.url, run: runCli, overrides: () => overrides });

interface Finding {
  check: string;
  ok: boolean;
  severity: 'error' | 'warning' | null;
  detail: string;
  fix: string | null;
}
const finding = (json: { checks: Finding[] }, check: string) => json.checks.find((c) => c.check === check)!;

/** Verifies the project's registered key on `chain` through the CLI with the challenge's `signature`. */
async function verifyWallet(t: ExecutionContext, projectId: string, chain: string, signature: Promise<string>): Promise<void> {
  const verified = await cli('wallet', 'verify', '--project', projectId, '--chain', chain, '--signature', await signature, '--json');
  t.is(verified.code, 0, verified.stdout + verified.stderr);
}

test.serial('doctor names what blocks real payments, and passes once each is fixed', async (t) => {
  // A first start: no project, no rate source reachable (no fixed rate, no quote yet), nothing watched.
  overrides = { 'plugins.rates.providers': ['coingecko'] };
  const first = await cli('doctor', '--json');
  t.is(first.code, 1, first.stdout);
  t.false(first.json.ready);
  t.like(finding(first.json, 'kernel.master-key'), { ok: true });
  // Production rules without a public base URL: checkout and OAuth links would name this machine.
  t.like(finding(first.json, 'kernel.base-url'), { ok: false, severity: 'warning' });
  t.regex(finding(first.json, 'kernel.base-url').fix!, /BASE_URL/);
  t.like(finding(first.json, 'wallets.verified'), { ok: false, severity: 'error' });
  t.like(finding(first.json, 'rates.source'), { ok: false, severity: 'error' });
  t.regex(finding(first.json, 'rates.source').fix!, /plugins\.rates\.fixed/);
  t.like(finding(first.json, 'watchers.providers'), { ok: false, severity: 'warning' });
  t.regex(finding(first.json, 'watchers.providers').detail, /plugins\.watchers\.chains is \{\}/);

  // A testnet project with an Ethereum key registered, not verified, and no webhook URL.
  const project = (await cli('project', 'create', '--name', 'shop', '--kind', 'testnet', '--json')).json.project;
  const registered = await cli('wallet', 'register', '--project', project.id, '--chain', 'eth', '--xpub', ethWallet.xpub, '--json');
  t.is(registered.code, 0, registered.stdout + registered.stderr);
  const second = await cli('doctor', '--json');
  t.is(second.code, 1);
  t.regex(finding(second.json, 'wallets.verified').detail, new RegExp(`shop \\(${project.id}\\) on eth`));
  t.like(finding(second.json, 'watchers.providers'), { ok: false, severity: 'error' });
  t.regex(finding(second.json, 'watchers.providers').detail, /eth\.sepolia/);
  t.like(finding(second.json, 'webhooks.url'), { ok: false, severity: 'warning' });

  // The human output lists the same, one line per check with its fix.
  const text = await cli('doctor');
  t.is(text.code, 1);
  t.regex(text.stdout, /ERROR {4}wallets\.verified: .*\n {11}fix: .*wallet verify/);
  t.regex(text.stdout, /problem\(s\) block real payments/);

  // Fix everything: verify the wallet, a fixed rate, a provider for eth sepolia, a webhook URL.
  await verifyWallet(t, project.id, 'eth', ethWallet.sign(registered.json.challenge.message));
  t.is((await cli('webhook', 'set', '--project', project.id, '--url', 'https://shop.example/hooks', '--json')).code, 0);
  const fixes = {
    'plugins.rates.providers': ['coingecko'],
    'plugins.rates.fixed': { ETH: '3000' },
    'plugins.watchers.chains': { eth: { sepolia: { providers: [{ name: 'node-a', url: 'http://127.0.0.1:8545' }] } } },
    // Dashboard sign-in codes need a mail server under production rules (nothing is sent here).
    'plugins.oauth.smtp.url': 'smtp://127.0.0.1:2525',
  };
  // A public base URL without TLS, or one naming this machine, is still a warning under production rules.
  for (const baseUrl of ['http://pay.example', 'http://127.0.0.1:3000', 'https://localhost', 'http://[::1]:8080', 'https://[::ffff:127.0.0.1]']) {
    overrides = { ...fixes, 'http.baseUrl': baseUrl };
    t.like(finding((await cli('doctor', '--json')).json, 'kernel.base-url'), { ok: false, severity: 'warning' }, baseUrl);
  }
  // Under explicit development a loopback address is what a local trial uses.
  overrides = { ...fixes, env: 'development', 'http.baseUrl': 'http://127.0.0.1:3000' };
  t.like(finding((await cli('doctor', '--json')).json, 'kernel.base-url'), { ok: true });
  overrides = { ...fixes, 'http.baseUrl': 'https://pay.example' };
  const fixed = await cli('doctor', '--json');
  t.is(fixed.code, 0, fixed.stdout);
  t.true(fixed.json.ready);
  t.is(fixed.json.errors, 0);
  t.is(fixed.json.warnings, 0);
  t.true(
    fixed.json.checks.every((c: Finding) => c.ok),
    JSON.stringify(fixed.json.checks),
  );
});

// Issue 40: a fresh install with no watcher configuration watches every enabled chain's mainnet
// and test network in use through the chains' public providers (nothing is asked of them here: no
// pool address waits, and doctor only reads the configuration).
test.serial("a fresh install with no watcher configuration passes doctor's chain checks through the public defaults, with their warning", async (t) => {
  overrides = { 'plugins.watchers.publicProviders': true, 'plugins.rates.fixed': { ETH: '3000' } };
  const fresh = await cli('doctor', '--json');
  const providers = finding(fresh.json, 'watchers.providers');
  t.like(providers, { ok: true, severity: null });
  for (const network of [
    'btc.bitcoin (public: mempool.space, blockstream.info; 2 operators, quorum 2; idle)',
    'eth.sepolia (public: publicnode, tenderly; 2 operators, quorum 2; idle)',
    'tron.shasta (public: trongrid; 1 operator, quorum 1; idle)',
    'ton.ton (public: toncenter; 1 operator, quorum 1; idle)',
  ]) {
    t.true(providers.detail.includes(network), `${network} in ${providers.detail}`);
  }
  t.regex(providers.detail, / \(idle: not scanned until a pool address waits there\)(\.$|; every network in use)/);
  const warning = finding(fresh.json, 'watchers.public-providers');
  t.like(warning, { ok: false, severity: 'warning' });
  t.regex(warning.detail, /network\(s\) are watched through public providers that need no key \(btc\.bitcoin, btc\.signet, eth\.ethereum, eth\.sepolia, /);
  t.regex(warning.detail, /they suit trials and small volumes/);
  t.regex(warning.detail, /the gateway uses at most 50 % of each/);
  t.regex(warning.detail, /On .*ton\.ton \(toncenter\).* one operator runs every provider: its word alone decides a payment \(quorum 1\)/);
  t.notRegex(warning.detail, /the config sets quorum 1/);
  t.regex(
    warning.fix!,
    /run your own node and configure it under plugins\.watchers\.chains\.<chain>\.<network>\.providers .*docs\/watchers\.md, "Your own node"/,
  );
  t.deepEqual(
    fresh.json.checks.filter((c: Finding) => c.check.startsWith('watchers.') && c.severity === 'error'),
    [],
  );

  // A testnet project with an Ethereum key, no provider configured: its network is watched already.
  const project = (await cli('project', 'create', '--name', 'fresh', '--kind', 'testnet', '--json')).json.project;
  const registered = await cli('wallet', 'register', '--project', project.id, '--chain', 'eth', '--xpub', ethWallet.xpub, '--json');
  await verifyWallet(t, project.id, 'eth', ethWallet.sign(registered.json.challenge.message));
  const used = finding((await cli('doctor', '--json')).json, 'watchers.providers');
  t.like(used, { ok: true });
  t.regex(used.detail, /; every network in use \(eth\.sepolia\) has a provider\.$/);

  // Quorum 1 set over two public operators: doctor says so, not that one operator runs them all (review finding 11).
  overrides = { ...overrides, 'plugins.watchers.chains': { eth: { sepolia: { quorum: 1 } } } };
  const setToOne = finding((await cli('doctor', '--json')).json, 'watchers.public-providers').detail;
  t.regex(
    setToOne,
    / On eth\.sepolia \(2 operators\) the config sets quorum 1 \(plugins\.watchers\.chains\.<chain>\.<network>\.quorum\): the scanning provider's word alone decides a payment, although another operator could confirm it\./,
  );
  t.false(/ On (.*?) one operator runs every provider/.exec(setToOne)![1]!.includes('eth.sepolia'), setToOne);

  // Your own node replaces the defaults of its network; the others stay public.
  overrides = { ...overrides, 'plugins.watchers.chains': { eth: { sepolia: { providers: [{ name: 'own-node', url: 'http://127.0.0.1:8545' }] } } } };
  const own = await cli('doctor', '--json');
  t.true(finding(own.json, 'watchers.providers').detail.includes('eth.sepolia (configured: own-node; 1 operator, quorum 1)'));
  t.notRegex(finding(own.json, 'watchers.public-providers').detail, /eth\.sepolia/);
  // Without the defaults nothing public remains, and the check passes.
  overrides = { ...overrides, 'plugins.watchers.publicProviders': false };
  t.like(finding((await cli('doctor', '--json')).json, 'watchers.public-providers'), { ok: true, detail: 'no network is watched through public providers.' });
});

test.serial('doctor reports a missing master key under production rules instead of refusing to run', async (t) => {
  overrides = { 'security.masterKey': undefined, 'plugins.rates.fixed': { ETH: '3000' } };
  const run = await cli('doctor', '--json');
  t.is(run.code, 1, run.stdout + run.stderr);
  t.like(finding(run.json, 'kernel.master-key'), { ok: false, severity: 'error' });
  t.regex(finding(run.json, 'kernel.master-key').fix!, /GW_MASTER_KEY/);
});

// Issue 33 finding 9: nothing said that nobody can sign in to the dashboard without a mail server.
test.serial('doctor warns that the dashboard cannot be signed into without SMTP under production rules', async (t) => {
  overrides = { 'plugins.rates.fixed': { ETH: '3000' } };
  const production = finding((await cli('doctor', '--json')).json, 'dashboard.sign-in');
  t.like(production, { ok: false, severity: 'warning' });
  t.regex(production.detail, /nobody can sign in to the dashboard/);
  t.regex(production.fix!, /plugins\.oauth\.smtp\.url/);
  overrides = { 'plugins.rates.fixed': { ETH: '3000' }, env: 'development' };
  const development = finding((await cli('doctor', '--json')).json, 'dashboard.sign-in');
  t.like(development, { ok: true });
  t.regex(development.detail, /written to the gateway's log/);
  overrides = { 'plugins.rates.fixed': { ETH: '3000' }, 'plugins.oauth.smtp.url': 'smtp://127.0.0.1:2525' };
  t.like(finding((await cli('doctor', '--json')).json, 'dashboard.sign-in'), { ok: true });
});

// Issue 33 finding 9: a TRON pool without an activated address refuses every trx invoice with 422.
test.serial('doctor reports a TRON pool with no activated address, until one is activated', async (t) => {
  overrides = { 'plugins.rates.fixed': { ETH: '3000' } };
  const project = (await cli('project', 'create', '--name', 'tron-shop', '--kind', 'testnet', '--json')).json.project;
  const registered = await cli('wallet', 'register', '--project', project.id, '--chain', 'tron', '--xpub', tronWallet.xpub, '--json');
  t.is(registered.code, 0, registered.stdout + registered.stderr);
  await verifyWallet(t, project.id, 'tron', tronWallet.sign(registered.json.challenge.message));
  t.is((await cli('pool', 'replenish', '--project', project.id, '--chain', 'tron', '--json')).code, 0);

  const before = await cli('doctor', '--json');
  t.is(before.code, 1);
  const missing = finding(before.json, 'address-pool.activation');
  t.like(missing, { ok: false, severity: 'error' });
  t.regex(missing.detail, new RegExp(`tron-shop \\(${project.id}\\) on tron`));
  t.regex(missing.detail, /tron_no_activated_addresses_available/);
  // Issue 36: the truth in counts ("20 available" was shown while none could be used), and what to do.
  const pool = (await cli('pool', 'status', '--project', project.id, '--chain', 'tron', '--json')).json[0];
  t.true(pool.total > 0);
  t.like(pool, { activated: 0, available: 0, unactivated: pool.total });
  t.regex(missing.detail, new RegExp(`on tron: ${pool.total} derived, 0 activated, 0 available for invoices`));
  t.regex(missing.fix!, /tron invoices need activated addresses; run an activation plan \(`gateway treasury activate`/);
  t.regex(missing.fix!, /send TRX to them/);
  t.regex(missing.fix!, /watchers mark each address activated once it exists on chain/);
  t.regex(missing.fix!, /gateway pool activate/);

  const status = await cli('pool', 'status', '--project', project.id, '--chain', 'tron', '--json');
  const address: string = status.json[0].awaiting_activation[0];
  t.truthy(address, status.stdout);
  t.is((await cli('pool', 'activate', '--project', project.id, '--chain', 'tron', '--address', address, '--json')).code, 0);
  const fixed = finding((await cli('doctor', '--json')).json, 'address-pool.activation');
  t.like(fixed, { ok: true });
  t.regex(fixed.detail, new RegExp(`tron-shop on tron: ${status.json[0].total} derived, 1 activated, 1 available for invoices`));
});

// Issue 33 finding 9: run from the CLI, doctor named the default port 8080, not the gateway's.
test.serial("doctor names the address the running gateway listens on, not the CLI's default port", async (t) => {
  overrides = { 'plugins.rates.fixed': { ETH: '3000' }, env: 'development' };
  const alone = finding((await cli('doctor', '--json')).json, 'kernel.base-url');
  t.regex(alone.detail, /http:\/\/<host>:8080 \(http\.port; no running gateway has recorded its address\)/);

  // A gateway started with its own port (0: any free one), which the CLI's config does not know.
  const gw = await startTestKernel({ plugins, chains, database, config: { env: 'development' } });
  t.teardown(() => gw.close());
  t.notRegex(gw.url, /:8080$/);
  const running = finding((await cli('doctor', '--json')).json, 'kernel.base-url');
  t.like(running, { ok: true });
  t.is(running.detail, `http.baseUrl is not set: links use ${gw.url}, right on this machine (development).`);

  // The row of a gateway that died without stopping is not reported.
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  t.teardown(() => client.end());
  await client.query(
    `insert into kernel_http_listeners (id, url, role, hostname, pid) values ('01DEADDEADDEADDEADDEADDEAD', 'http://127.0.0.1:1', 'all', $1, 2147483646)`,
    [hostname()],
  );
  t.is(finding((await cli('doctor', '--json')).json, 'kernel.base-url').detail, running.detail);

  // Stopped: its address is gone.
  await gw.close();
  t.regex(finding((await cli('doctor', '--json')).json, 'kernel.base-url').detail, /no running gateway has recorded its address/);
});
