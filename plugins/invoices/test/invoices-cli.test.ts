import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
// The operator CLI itself (not a package dependency: the CLI app depends on this plugin).
import { cliRunner } from '@gw/testing';
import { invoicesPlugin } from '../src/index.js';
import { ALL_CHAINS, FIXED_RATES, projectWithPools, startInvoicesKernel } from './helpers.js';

let gw: TestKernel;
let operatorId: string;
test.before(async () => {
  gw = await startInvoicesKernel();
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('invoices-cli', CLI_ACTOR)).id;
});
test.after.always(async () => {
  await gw?.close();
});

const run = cliRunner({
  plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin, ratesPlugin, invoicesPlugin],
  chains: ALL_CHAINS,
  databaseUrl: () => gw.database.url,
  // The test gateway's HTTP settings too: `checkout_url` is built from them (http.baseUrl unset).
  overrides: () => ({ 'http.port': 0, 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES, 'plugins.rates.fixedFiat': { EUR: '1.08' } }),
});
const cli = (...argv: string[]) => run(...argv, '--json');

test('policy set and show: matching mode, expiry, confirmations, coins; new invoices follow it', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['btc', 'eth']);
  const shown = await cli('policy', 'show', '--project', p.projectId);
  t.is(shown.code, 0);
  t.like(shown.json.policy, { default_matching_mode: 'exact', expiry_seconds: 3600, confirmations: { btc: 2, eth: 12 } });
  t.is(shown.json.policy.enabled_coins.length, 15);

  const set = await cli(
    'policy',
    'set',
    '--project',
    p.projectId,
    '--matching-mode',
    'at_least',
    '--expiry-seconds',
    '1800',
    '--confirmations',
    'btc=1,eth=30',
    '--coins',
    'btc,usdc_erc20',
  );
  t.is(set.code, 0, JSON.stringify(set.json));
  t.like(set.json.policy, {
    default_matching_mode: 'at_least',
    expiry_seconds: 1800,
    confirmations: { btc: 1, eth: 30 },
    enabled_coins: ['btc', 'usdc_erc20'],
  });

  const invoice = await signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body: { external_id: 'cli-1', amount_crypto: '0.01', coin: 'btc' } });
  t.like(invoice.body, { matching_mode: 'at_least', confirmation_threshold: 1 });
  t.is(invoice.body.expires_at - invoice.body.created_at, 1800);
  const eth = await signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body: { external_id: 'cli-2', amount_crypto: '0.01', coin: 'eth' } });
  t.is(eth.body.error_code, 'coin_not_enabled');

  // Only the flags given change; "default" removes an override.
  const partial = await cli('policy', 'set', '--project', p.projectId, '--confirmations', 'eth=default', '--coins', 'all');
  t.like(partial.json.policy, { default_matching_mode: 'at_least', expiry_seconds: 1800, confirmations: { btc: 1, eth: 12 } });
  t.is(partial.json.policy.enabled_coins.length, 15);
  t.deepEqual(partial.json.policy.overrides.confirmations, { btc: 1 });

  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: p.projectId, action: 'invoice_policy.set' });
  t.is(audit.length, 2);
  t.true(audit.every((row) => row.channel === 'cli' && row.actor === 'operator-cli'));
});

test('policy set refuses bad values and changes nothing', async (t) => {
  const p = await projectWithPools(gw, operatorId, []);
  const cases: [string[], number, string][] = [
    [['--expiry-seconds', '59'], 1, 'validation_error'],
    [['--expiry-seconds', 'soon'], 2, 'usage'],
    [['--confirmations', 'btc=1001'], 1, 'validation_error'],
    // Issue 33 finding 19: 0 on a production project needs --allow-zero-confirmations.
    [['--confirmations', 'btc=0'], 1, 'validation_error'],
    [['--confirmations', 'eth=3,btc=0'], 1, 'validation_error'],
    [['--confirmations', 'doge=3'], 1, 'validation_error'],
    [['--confirmations', 'btc'], 1, 'validation_error'],
    [['--coins', 'btc,doge'], 1, 'invalid_coin'],
    [['--coins', 'btc,Doge!'], 2, 'usage'],
    [['--matching-mode', 'roughly'], 2, 'usage'],
    [['--underpayment-tolerance', '0.051'], 1, 'validation_error'],
    [['--underpayment-tolerance', '5%'], 1, 'validation_error'],
    [['--underpayment-tolerance', '0.0000001'], 1, 'validation_error'],
    [['--underpayment-tolerance=-0.01'], 1, 'validation_error'],
    [[], 1, 'validation_error'],
  ];
  for (const [flags, code, error] of cases) {
    const res = await cli('policy', 'set', '--project', p.projectId, ...flags);
    t.is(res.code, code, flags.join(' '));
    t.is(res.json.error_code, error, flags.join(' '));
  }
  t.is((await cli('policy', 'set', '--project', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--expiry-seconds', '600')).json.error_code, 'project_not_found');
  t.is((await gw.kernel.cradle.db('invoices_project_policies').where({ project_id: p.projectId })).length, 0);
});

test('underpayment tolerance: set (canonical), shown, snapshotted on new invoices only, reset with "default"', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth']);
  const before = await signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body: { external_id: 'tol-0', amount_crypto: '0.01', coin: 'eth' } });
  t.is(before.body.underpayment_tolerance, '0');
  t.like((await cli('policy', 'show', '--project', p.projectId)).json.policy, { underpayment_tolerance: '0', overrides: { underpayment_tolerance: null } });
  const set = await cli('policy', 'set', '--project', p.projectId, '--underpayment-tolerance', '0.0050');
  t.is(set.code, 0, JSON.stringify(set.json));
  t.like(set.json.policy, { underpayment_tolerance: '0.005', overrides: { underpayment_tolerance: '0.005' } });
  const after = await signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body: { external_id: 'tol-1', amount_crypto: '0.01', coin: 'eth' } });
  t.is(after.status, 201);
  t.is(after.body.underpayment_tolerance, '0.005');
  t.is((await gw.kernel.cradle.invoicesService.get(p.projectId, before.body.id)).underpayment_tolerance, '0', 'an existing invoice keeps its own');
  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: p.projectId, action: 'invoice_policy.set' }).first();
  t.is(audit.details.underpaymentTolerance, '0.005');
  const reset = await cli('policy', 'set', '--project', p.projectId, '--underpayment-tolerance', 'default');
  t.like(reset.json.policy, { underpayment_tolerance: '0', overrides: { underpayment_tolerance: null } });
});

test('a threshold of 0 on a production project is taken only with --allow-zero-confirmations, audited and listed for the start-up warning; testnet takes it freely', async (t) => {
  const production = await projectWithPools(gw, operatorId, []);
  const refused = await cli('policy', 'set', '--project', production.projectId, '--confirmations', 'btc=0');
  t.regex(refused.json.message, /--allow-zero-confirmations/);
  const accepted = await cli('policy', 'set', '--project', production.projectId, '--confirmations', 'btc=0', '--allow-zero-confirmations');
  t.is(accepted.code, 0, JSON.stringify(accepted.json));
  t.is(accepted.json.policy.confirmations.btc, 0);
  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: production.projectId, action: 'invoice_policy.set' }).first();
  t.is(audit.details.allowZeroConfirmations, true);
  const listed = await gw.kernel.cradle.invoicesPolicies.unconfirmedProductionProjects();
  t.deepEqual(
    listed.find((p) => p.projectId === production.projectId),
    { projectId: production.projectId, chains: ['btc'] },
  );
  const testnet = await projectWithPools(gw, operatorId, [], 'testnet');
  const free = await cli('policy', 'set', '--project', testnet.projectId, '--confirmations', 'btc=0');
  t.is(free.code, 0, JSON.stringify(free.json));
  t.false((await gw.kernel.cradle.invoicesPolicies.unconfirmedProductionProjects()).some((p) => p.projectId === testnet.projectId));
});

test('invoice create: a one-off invoice in USD, another fiat currency or the coin, audited as the operator; the same external id again replays it; bad input refused with nothing written', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['btc']);
  const usd = await cli('invoice', 'create', '--project', p.projectId, '--coin', 'btc', '--amount', '25', '--description', 'Order 9');
  t.is(usd.code, 0, JSON.stringify(usd.json));
  t.true(usd.json.created);
  t.like(usd.json.invoice, { coin: 'btc', amount_usd: 25, status: 'pending', metadata: { description: 'Order 9' } });
  t.regex(usd.json.invoice.external_id, /^op_[0-9A-Z]{26}$/);
  t.regex(usd.json.invoice.checkout_url, /\/checkout\/[\w-]{32}$/);
  const audit = await gw.kernel.cradle
    .db('kernel_audit_log')
    .where({ target: `invoice:${usd.json.invoice.id}`, action: 'invoice.create' })
    .first();
  t.like(audit, { channel: 'cli', actor: 'operator-cli' });

  const euros = await cli('invoice', 'create', '--project', p.projectId, '--coin', 'btc', '--amount', '50', '--currency', 'EUR');
  t.is(euros.code, 0, JSON.stringify(euros.json));
  t.like(euros.json.invoice, { price_currency: 'EUR', price_amount: '50.00', price_rate: '1.08', amount_usd: 54 });

  // In coin, with an external id: run twice, the second answers the first invoice.
  const inCoin = ['invoice', 'create', '--project', p.projectId, '--coin', 'btc', '--amount', '0.002', '--currency', 'coin', '--external-id', 'cli-one-off'];
  const coin = await cli(...inCoin);
  t.like(coin.json, { created: true, invoice: { external_id: 'cli-one-off', amount_crypto: '0.002', amount_usd: null } });
  const replay = await cli(...inCoin);
  t.like(replay.json, { created: false, invoice: { id: coin.json.invoice.id } });

  const count = async () => (await gw.kernel.cradle.db('invoices_invoices').where({ project_id: p.projectId })).length;
  const before = await count();
  for (const [flags, error] of [
    [['--coin', 'btc', '--amount', '1,5'], 'validation_error'],
    [['--coin', 'btc', '--amount', '2000000000'], 'validation_error'],
    [['--coin', 'btc', '--amount', '10', '--currency', 'XYZ'], 'validation_error'],
    [['--coin', 'eth', '--amount', '10'], 'wallet_not_bound'],
    [['--coin', 'doge', '--amount', '10'], 'coin_not_enabled'],
    [['--coin', 'btc', '--amount', '0.002', '--currency', 'coin', '--external-id', 'cli-one-off', '--description', 'other'], 'external_id_conflict'],
  ] as const) {
    const res = await cli('invoice', 'create', '--project', p.projectId, ...flags);
    t.is(res.code, 1, flags.join(' '));
    t.is(res.json.error_code, error, flags.join(' '));
  }
  t.is((await cli('invoice', 'create', '--project', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--coin', 'btc', '--amount', '1')).json.error_code, 'project_not_found');
  t.is(await count(), before);
});

test('invoice list, show and cancel for operators', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['ada']);
  const created = await signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body: { external_id: 'op-1', amount_usd: 20, coin: 'ada' } });
  const listed = await cli('invoice', 'list', '--project', p.projectId);
  t.deepEqual(
    listed.json.items.map((i: { id: string }) => i.id),
    [created.body.id],
  );
  const shown = await cli('invoice', 'show', '--project', p.projectId, '--id', created.body.id);
  t.deepEqual(shown.json.invoice, created.body);
  const cancelled = await cli('invoice', 'cancel', '--project', p.projectId, '--id', created.body.id);
  t.is(cancelled.json.invoice.status, 'cancelled');
  const again = await cli('invoice', 'cancel', '--project', p.projectId, '--id', created.body.id);
  t.is(again.code, 1);
  t.is(again.json.error_code, 'invoice_not_cancellable');
  const row = await gw.kernel.cradle
    .db('kernel_audit_log')
    .where({ target: `invoice:${created.body.id}`, action: 'invoice.cancel' })
    .first();
  t.like(row, { channel: 'cli', actor: 'operator-cli' });
});
