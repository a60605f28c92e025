/**
 * No payment is credited on one provider's word (issue 40), end to end on a real EVM node: the
 * shipped gateway (`apps/all` and the operator CLI as their own processes, configured by a config
 * file) watches anvil, running with Sepolia's chain id, through two endpoints of two operators
 * with `quorum: 2`. Each endpoint is a JSON-RPC proxy in front of the same node
 * (packages/testing/src/rpc-proxy.ts); `alpha` can be told to lie (a made-up ERC-20 `Transfer`
 * log to an invoice's address in a real block, packages/testing/src/rpc-lies.ts), `beta` to lag
 * (stuck at a height). `alpha` comes first, so it is the endpoint that scans, and what it invents
 * is detected; the quorum alone keeps it from counting.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import pg from 'pg';
import { createTestDatabase, signedFetch, startTestKernel, waitFor, type TestDatabase } from '@gw/kernel/testing';
import { chains, plugins } from '@gw/app-gateway';
import { verifyWebhook } from '@gw/webhook-verify';
import { getAddress, parseEther } from 'ethers';
import {
  Anvil,
  inventTokenTransfer,
  projectWithPools,
  Receiver,
  RpcProxy,
  runCliProcess,
  startApp,
  stopAll,
  stuckAt,
  waitForUrl,
  type AppProcess,
  type TestProject,
} from '@gw/testing';

/** Circle's USDC on Sepolia: the eth definition's `usdc_erc20` contract there. */
const USDC = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238';
const RATES = { ETH: '3000', USDC: '1' };
const MASTER_KEY = '0f'.repeat(32);

let anvil: Anvil, alpha: RpcProxy, beta: RpcProxy, database: TestDatabase, receiver: Receiver, app: AppProcess, db: pg.Client;
let url: string, project: TestProject, payer: string, env: Record<string, string>, dir: string;

test.before(async () => {
  anvil = await Anvil.start(11155111);
  alpha = await RpcProxy.start(anvil.url);
  beta = await RpcProxy.start(anvil.url);
  database = await createTestDatabase();
  receiver = await Receiver.start();
  payer = (await anvil.accounts())[0]!;

  // The project is made in-process on the same database (the app's own CLI is what the tests of
  // the project commands run); the app then serves it.
  const setup = await startTestKernel({
    plugins,
    chains,
    role: 'cli',
    database,
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': RATES,
      'plugins.address-pool.targetFree': 10,
      'plugins.watchers.publicProviders': false,
    },
  });
  try {
    const operator = await setup.kernel.cradle.tenancyOperators.create('quorum-anvil', CLI_ACTOR);
    project = await projectWithPools(setup, operator.id, ['eth'], 'testnet');
    await setup.kernel.cradle.tenancyProjects.setWebhookUrl(project.projectId, `${receiver.url}/hooks`, CLI_ACTOR);
  } finally {
    await setup.close();
  }

  dir = mkdtempSync(join(tmpdir(), 'gw-quorum-'));
  const config = {
    plugins: {
      watchers: {
        // Nothing is watched but what is named here (no public defaults: this machine is offline).
        publicProviders: false,
        scanIntervalSeconds: 1,
        chains: {
          eth: {
            sepolia: {
              providers: [
                { name: 'alpha', url: alpha.url, operator: 'alpha-rpc' },
                { name: 'beta', url: beta.url, operator: 'beta-rpc' },
              ],
              quorum: 2,
              startHeight: 0,
            },
          },
        },
      },
      rates: { providers: ['fixed'], fixed: RATES },
      // The test's webhook receiver is on loopback.
      webhooks: { allowPrivateTargets: true },
    },
  };
  writeFileSync(join(dir, 'gateway.config.json'), JSON.stringify(config));
  env = { DATABASE_URL: database.url, GW_CONFIG: join(dir, 'gateway.config.json'), GW_MASTER_KEY: MASTER_KEY, LOG_LEVEL: 'warn' };
  app = startApp('all', { ...env, PORT: '0' });
  url = await waitForUrl(app);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});

test.after.always(async () => {
  if (app && app.child.exitCode === null) {
    app.child.kill('SIGTERM');
    await app.exited;
  }
  await db?.end();
  await stopAll(alpha, beta, receiver, anvil);
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCliProcess(env, ...args);
const uid = () => `order-${Math.random().toString(36).slice(2)}`;

async function invoice(body: Record<string, unknown>): Promise<{ id: string; address: string; confirmation_threshold: number }> {
  const created = await signedFetch(url, '/api/v1/invoices', { ...project, method: 'POST', body: { external_id: uid(), ...body } });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}
const get = async (id: string) => (await signedFetch(url, `/api/v1/invoices/${id}`, project)).body;
const statusOf = async (id: string): Promise<string> => (await get(id)).status;
const cursor = async () => Number((await db.query(`select height from watchers_cursors where chain = 'eth' and network = 'sepolia'`)).rows[0]?.height ?? -1);
const eventsOf = (invoiceId: string) =>
  receiver.requests
    .map((r) => ({ ...JSON.parse(r.body), signature: String(r.headers['x-service-signature']), raw: r.body }))
    .filter((e) => e.data?.invoice_id === invoiceId);

/** The newest audit log entry of `action`. */
const audited = async (action: string) =>
  (await db.query('select actor, channel, target, details from kernel_audit_log where action = $1 order by id desc limit 1', [action])).rows[0];

/** The value of one sample of the app's Prometheus metrics (0 when absent), found by its name and the labels given. */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const open = line.indexOf('{');
    const close = line.lastIndexOf('}');
    const sample = new Map([...line.slice(open + 1, close).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (Object.entries(labels).every(([k, v]) => sample.get(k) === v)) total += Number(line.slice(close + 1).trim());
  }
  return total;
}
const attestations = (provider: string, answer: string) => metric('gateway_watcher_attestations_total', { chain: 'eth', network: 'sepolia', provider, answer });

/**
 * Waits until the app's passes have scanned up to the node's tip and asked `provider` again after
 * that (its `answer` counted once more than before): the invoice's state now is what the quorum
 * made of the chain as it stands.
 */
async function passesAsked(t: ExecutionContext, provider: string, answer: string, before: number): Promise<void> {
  const tip = await anvil.blockNumber();
  await waitFor(
    async () => (await cursor()) === tip && (await attestations(provider, answer)) > before,
    60_000,
    `a pass at the tip (${tip}) that asks ${provider} (${answer}): ${app.output().slice(-2000)}`,
  );
  t.pass();
}

test.serial('two honest endpoints: a real payment is detected on one word and turns paid at the threshold, once both operators report it', async (t) => {
  const inv = await invoice({ coin: 'eth', amount_crypto: '0.25' });
  const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.25'));
  await waitFor(async () => (await statusOf(inv.id)) === 'detected', 60_000, `detected: ${app.output().slice(-2000)}`);
  await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.detected'), 30_000, 'invoice.detected at the webhook URL');
  const detected = eventsOf(inv.id).find((e) => e.event_type === 'invoice.detected')!;
  t.deepEqual(detected.data.sources, { detected_by: 1, required_for_paid: 2 }, "the event says the detection is one provider's word");

  // One block short of the threshold: confirming, on both endpoints' word alike.
  await anvil.mine(inv.confirmation_threshold - 2);
  const tip = await anvil.blockNumber();
  await waitFor(async () => (await cursor()) === tip, 60_000, 'the passes reach the tip');
  t.is(await statusOf(inv.id), 'detected');

  await anvil.mine(1);
  await waitFor(async () => (await statusOf(inv.id)) === 'paid', 60_000, `paid: ${app.output().slice(-2000)}`);
  const paid = await get(inv.id);
  t.is(paid.confirmations, inv.confirmation_threshold);
  t.like(paid.transactions[0], { tx_hash: txHash, amount_units: '250000000000000000', status: 'confirmed' });
  t.true((await attestations('alpha', 'reported')) >= 1);
  t.true((await attestations('beta', 'reported')) >= 1);
  const [row] = (await db.query('select attestation, attested_by from watchers_transfers where tx_hash = $1', [txHash])).rows;
  t.is(row.attestation, 'quorum');
  t.deepEqual([...row.attested_by].sort(), ['alpha', 'beta']);
  await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'), 30_000, 'invoice.paid at the webhook URL');
  const paidEvent = eventsOf(inv.id).find((e) => e.event_type === 'invoice.paid')!;
  t.is(paidEvent.data.paid_units, '250000000000000000');
  t.true(verifyWebhook({ rawBody: paidEvent.raw, header: paidEvent.signature, secrets: [project.secret] }).ok);
});

test.serial('a lagging endpoint: the payment waits at the threshold until the second operator reaches it, then turns paid', async (t) => {
  const inv = await invoice({ coin: 'eth', amount_crypto: '0.1' });
  // beta's node stalls before the payment's block.
  beta.rewrite = stuckAt(await anvil.blockNumber());
  t.teardown(() => (beta.rewrite = undefined));
  const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.1'));
  await waitFor(async () => (await statusOf(inv.id)) === 'detected', 60_000, `detected: ${app.output().slice(-2000)}`);

  const lagging = await attestations('beta', 'lagging');
  await anvil.mine(inv.confirmation_threshold + 2);
  await passesAsked(t, 'beta', 'lagging', lagging);
  const waiting = await get(inv.id);
  t.is(waiting.status, 'detected', 'at the threshold on alpha alone, the invoice waits');
  t.true(waiting.confirmations < inv.confirmation_threshold);
  t.false(eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'));
  const open = await cli('watcher', 'disagreements', '--status', 'open', '--json');
  t.is(open.code, 0, open.output);
  t.false(JSON.stringify(open.json).includes(txHash), 'a provider behind is no disagreement');

  // beta catches up: both operators report it, and it is paid; nothing was lost meanwhile.
  beta.rewrite = undefined;
  await waitFor(async () => (await statusOf(inv.id)) === 'paid', 60_000, `paid: ${app.output().slice(-2000)}`);
  t.like((await get(inv.id)).transactions[0], { tx_hash: txHash, amount_units: '100000000000000000', status: 'confirmed' });
  await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'), 30_000, 'invoice.paid at the webhook URL');
});

test.serial(
  'a lying endpoint invents a payment: never paid, a disagreement open, the liar marked; the operator rejects it with the CLI once ripe, the invoice waits again, and a real payment is paid once the mark is cleared',
  async (t) => {
    // Many passes and CLI processes on a machine the suite shares.
    t.timeout(300_000);
    const inv = await invoice({ coin: 'usdc_erc20', amount_crypto: '12.5' });
    const height = (await anvil.blockNumber()) + 1;
    const lie = inventTokenTransfer(anvil, { token: USDC, from: getAddress(`0x${'5a'.repeat(20)}`), to: inv.address, amount: 12_500_000n, height });
    alpha.rewrite = lie.rewrite;
    t.teardown(() => (alpha.rewrite = undefined));
    await anvil.mine(1);
    await waitFor(async () => (await statusOf(inv.id)) === 'detected', 60_000, `the invented payment detected: ${app.output().slice(-2000)}`);
    t.like((await get(inv.id)).transactions[0], { tx_hash: lie.txHash, amount_units: '12500000', status: 'pending' });
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.detected'), 30_000, 'invoice.detected at the webhook URL');
    t.deepEqual(eventsOf(inv.id).find((e) => e.event_type === 'invoice.detected')!.data.sources, { detected_by: 1, required_for_paid: 2 });

    // Well past the threshold: beta has the block, not the transfer.
    const denied = await attestations('beta', 'denied');
    await anvil.mine(inv.confirmation_threshold * 2);
    await passesAsked(t, 'beta', 'denied', denied);
    t.is(await statusOf(inv.id), 'detected', "never paid on the liar's word");
    t.false(eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'));

    const listed = await cli('watcher', 'disagreements', '--status', 'open', '--json');
    t.is(listed.code, 0, listed.output);
    const disagreement = listed.json.disagreements.find((d: { tx_hash: string }) => d.tx_hash === lie.txHash);
    t.like(disagreement, {
      chain: 'eth',
      network: 'sepolia',
      kind: 'contradiction',
      invoice_id: inv.id,
      amount_units: '12500000',
      status: 'open',
      block_height: height,
    });
    t.deepEqual(disagreement.reported_by, ['alpha']);
    t.deepEqual(disagreement.denied_by, ['beta']);
    t.is(await metric('gateway_watcher_disagreements', { chain: 'eth', network: 'sepolia', state: 'open' }), 1);

    // The same answers at the re-check after the disagreement's backoff (twice the scan interval at
    // first; the passes go on without new blocks) mark the liar: one round of answers marks nobody.
    await waitFor(
      async () => (await metric('gateway_watcher_provider_marked', { chain: 'eth', network: 'sepolia', provider: 'alpha' })) === 1,
      60_000,
      `the liar marked at the re-check: ${app.output().slice(-2000)}`,
    );
    const [checked] = (await db.query('select checks from watchers_disagreements where id = $1', [disagreement.id])).rows;
    t.true(checked.checks >= 2, 'marked at a second check, not the first');

    // The liar is marked: the metric, the CLI, and the scans pass it over (beta scans on).
    t.is(await metric('gateway_watcher_provider_marked', { chain: 'eth', network: 'sepolia', provider: 'alpha' }), 1);
    t.is(await metric('gateway_watcher_provider_marked', { chain: 'eth', network: 'sepolia', provider: 'beta' }), 0);
    const providers = await cli('watcher', 'providers', '--chain', 'eth', '--network', 'sepolia', '--json');
    t.is(providers.code, 0, providers.output);
    const [sepolia] = providers.json.networks;
    t.like(sepolia, { chain: 'eth', network: 'sepolia', origin: 'configured', quorum: 2, operators: 2 });
    const byName = (name: string) => sepolia.providers.find((p: { name: string }) => p.name === name);
    t.like(byName('alpha'), { operator: 'alpha-rpc', mark: { disagreement_id: disagreement.id } });
    t.regex(byName('alpha').mark.reason, new RegExp(`reported ${lie.txHash}.*which beta do not have`));
    t.like(byName('beta'), { operator: 'beta-rpc', mark: null });
    t.like(await audited('watcher.provider_mark'), { actor: 'watchers', channel: 'system', target: 'provider:eth:sepolia:alpha' });
    const alphaBefore = alpha.requests;
    const betaBefore = beta.requests;
    const stillDenied = await attestations('beta', 'denied');
    await anvil.mine(inv.confirmation_threshold);
    await passesAsked(t, 'beta', 'denied', stillDenied);
    t.true(beta.requests > betaBefore);
    t.is(alpha.requests, alphaBefore, 'a marked endpoint is neither scanned nor asked while the other answers');
    t.is(await statusOf(inv.id), 'detected', 'still never paid');

    // Too early to decide: the disagreement waits for the providers to agree first.
    const early = await cli('watcher', 'decide', '--id', disagreement.id, '--reject', '--reason', 'beta has no such transfer', '--json');
    t.not(early.code, 0);
    t.is(early.json?.error_code, 'disagreement_not_ripe', early.output);

    // The decision time passes (plugins.watchers.disagreementDecisionSeconds, 30 minutes by default).
    await db.query(`update watchers_disagreements set decide_after = now() - interval '1 second' where id = $1`, [disagreement.id]);
    await waitFor(
      async () => (await metric('gateway_watcher_disagreements', { chain: 'eth', network: 'sepolia', state: 'awaiting_decision' })) === 1,
      30_000,
      'the disagreement awaits the operator',
    );
    const rejected = await cli('watcher', 'decide', '--id', disagreement.id, '--reject', '--reason', 'beta has no such transfer', '--json');
    t.is(rejected.code, 0, rejected.output);
    t.like(rejected.json.disagreement, { id: disagreement.id, status: 'rejected', reason: 'beta has no such transfer' });
    const back = await get(inv.id);
    t.is(back.status, 'pending', 'the invented payment dropped, the invoice waits for a real one');
    t.false(eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'));
    t.is(await metric('gateway_watcher_disagreements', { chain: 'eth', network: 'sepolia', state: 'open' }), 0);
    const [dropped] = (await db.query('select status, rejected_at from watchers_transfers where tx_hash = $1', [lie.txHash])).rows;
    t.is(dropped.status, 'reverted');
    t.truthy(dropped.rejected_at);
    const decision = await audited('watcher.disagreement_reject');
    t.like(decision, { actor: 'operator-cli', channel: 'cli', target: `disagreement:${disagreement.id}` });
    t.like(decision.details, { tx_hash: lie.txHash, invoice_id: inv.id, reported_by: ['alpha'], denied_by: ['beta'], reason: 'beta has no such transfer' });

    // alpha is fixed, but still marked: beta alone is one operator, short of the quorum, so even a
    // real payment waits (safety over liveness), on the operator's desk rather than unseen.
    alpha.rewrite = undefined;
    await anvil.installErc20(USDC, payer, 10n ** 12n);
    const txHash = await anvil.sendToken(USDC, payer, inv.address, 12_500_000n);
    await anvil.mine(inv.confirmation_threshold);
    const waiting = await waitFor(
      async () => (await db.query(`select id, status from watchers_disagreements where tx_hash = $1`, [txHash])).rows[0],
      60_000,
      `a disagreement for the real payment while the quorum is out of reach: ${app.output().slice(-2000)}`,
    );
    t.is(waiting.status, 'open');
    t.is(await statusOf(inv.id), 'detected');
    const short = await cli('watcher', 'disagreements', '--status', 'open', '--json');
    t.like(
      short.json.disagreements.find((d: { id: string }) => d.id === waiting.id),
      { kind: 'out_of_reach', tx_hash: txHash, invoice_id: inv.id, reported_by: ['beta'], denied_by: [], other_branch: [] },
    );

    // The operator clears the mark: both operators report the real payment, the disagreement
    // resolves by itself, and the invoice is paid.
    const unmarked = await cli('watcher', 'unmark', '--chain', 'eth', '--network', 'sepolia', '--provider', 'alpha', '--json');
    t.is(unmarked.code, 0, unmarked.output);
    t.deepEqual(unmarked.json.marks, []);
    t.like(await audited('watcher.provider_unmark'), { actor: 'operator-cli', channel: 'cli', target: 'provider:eth:sepolia:alpha' });
    t.is(await metric('gateway_watcher_provider_marked', { chain: 'eth', network: 'sepolia', provider: 'alpha' }), 0);
    await waitFor(async () => (await statusOf(inv.id)) === 'paid', 90_000, `paid by the real payment: ${app.output().slice(-2000)}`);
    const paid = await get(inv.id);
    t.is(paid.transactions.find((tx: { status: string }) => tx.status === 'confirmed').tx_hash, txHash);
    t.is((await db.query(`select status from watchers_disagreements where id = $1`, [waiting.id])).rows[0].status, 'resolved');
    const [attested] = (await db.query('select attestation, attested_by from watchers_transfers where tx_hash = $1', [txHash])).rows;
    t.is(attested.attestation, 'quorum');
    t.deepEqual([...attested.attested_by].sort(), ['alpha', 'beta']);
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'), 30_000, 'invoice.paid at the webhook URL');
    t.is(eventsOf(inv.id).filter((e) => e.event_type === 'invoice.paid').length, 1);
  },
);
