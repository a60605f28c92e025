/**
 * The operator's surfaces of x402 (issue 41) on anvil with the EIP-3009 test token: `gateway x402
 * status` (mode, payable assets, the gas wallet's balance, 24 h spend and caps in ETH, the external
 * facilitator), `gateway x402 settlements` and its filters, the counters of a settlement, and the
 * readiness checks `x402.gas-wallets` (ok; a balance below one settlement at the cap; a key file
 * that holds no key) and `x402.facilitator` (ok against a second gateway serving as the external
 * facilitator; an error when it refuses the credential). The second gateway shares the database
 * and the chain: its facilitator routes are a real x402 facilitator.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { buildDeclared, newId, runCommand, runReadinessChecks, type Cradle, type ReadinessFinding } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { getAddress } from 'ethers';
import { x402Commands } from '../src/cli.js';
import { facilitatorToken } from '../src/facilitator-token.js';
import type { SettleResponse } from '../src/protocol/messages.js';
import type { SettlementRow } from '../src/operator/settlement-rows.js';
import type { X402StatusView } from '../src/operator/x402-status.js';
import { x402Readiness } from '../src/readiness.js';
import { GasWallets } from '../src/services/gas-wallets.js';
import { ANVIL_CAIP, GAS_CAPS, signPayment, startX402, USDC, USDC_DOMAIN, type X402Harness } from './helpers.js';

const ETH = 10n ** 18n;
let h: X402Harness;
let dir: string;
let settled: SettleResponse;
let invoiceId: string;

test.before(async () => {
  h = await startX402();
  dir = await mkdtemp(join(tmpdir(), 'x402-operator-'));
  // One settlement, as a payer URL makes it: the invoice's requirement, a signed payment, verify then settle.
  const invoice = await h.invoice('2');
  invoiceId = invoice.id;
  const { x402Payments } = h.gw.kernel.cradle;
  const required = await x402Payments.requirementsFor(invoice, { url: invoice.checkout_url, description: `Invoice ${invoice.id}` });
  if (!required) throw new Error('the invoice offers no x402 requirement');
  const requirements = required.accepts[0]!;
  const payer = await h.payer(5n * USDC);
  const payload = await signPayment(payer, requirements);
  settled = await x402Payments.settle(payload, requirements, { projectId: h.project.projectId, invoiceId, source: 'invoice' });
  if (!settled.success) throw new Error(`the settlement failed: ${JSON.stringify(settled)}`);
});
test.after.always(async () => {
  await h?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function cli<T>(gw: TestKernel, verb: string, flags: Record<string, string> = {}): Promise<T> {
  const command = x402Commands.find((c) => c.verb === verb);
  if (!command) throw new Error(`no command x402 ${verb}`);
  return (await runCommand(command, flags, gw.kernel.cradle)) as T;
}

async function x402Findings(gw: TestKernel): Promise<Record<string, ReadinessFinding>> {
  const report = await runReadinessChecks(gw.kernel.cradle.readiness.checks().filter((c) => c.name.startsWith('x402.')));
  return Object.fromEntries(report.checks.map((f) => [f.check, f]));
}

test('x402 status: the mode, the payable asset read from the chain, the gas wallet in ETH with the settlement’s spend and what the caps leave', async (t) => {
  const { x402 } = await cli<{ x402: X402StatusView }>(h.gw, 'status');
  const [row] = await h.gw.kernel.cradle.x402Settlements.list({ limit: 1 });
  const spend = BigInt(row!.spend_units!);
  t.true(spend > 0n && spend <= BigInt(GAS_CAPS.maxPerSettlementUnits));
  const balance = await h.chain.anvil.rpc<string>('eth_getBalance', [h.gasWallet.address, 'latest']);
  t.like(x402, { settlement: 'gas_wallet', facilitator: null, max_timeout_seconds: 300, receipt_wait_seconds: 60, pay_to_per_minute: 600, paid_tools: [] });
  t.deepEqual(x402.assets, [
    { coin: 'usdc', chain: 'eth', network: 'anvil', caip: ANVIL_CAIP, asset: getAddress(h.usdc), decimals: 6, eip712: { ...USDC_DOMAIN } },
  ]);
  t.is(x402.gas_wallets_error, null);
  t.is(x402.gas_wallets.length, 1);
  const wallet = x402.gas_wallets[0]!;
  t.is(wallet.address, h.gasWallet.address);
  t.like(wallet, {
    chain: 'eth',
    network: 'anvil',
    max_per_settlement: { amount: '0.1', unit: 'ETH', units: GAS_CAPS.maxPerSettlementUnits },
    max_per_day: { amount: '1', unit: 'ETH', units: GAS_CAPS.maxPerDayUnits },
  });
  t.is(wallet.spent_24h.units, spend.toString(), 'the day’s spend is what the settlement signed for');
  t.is(wallet.day_left.units, (ETH - spend).toString());
  t.is(wallet.balance!.units, BigInt(balance).toString(), 'the balance the chain reports');
  t.true(BigInt(balance) < 10n * ETH, 'the settlement paid its gas from the wallet');
  t.regex(wallet.balance!.amount, /^9\.\d+$/);
  t.is(wallet.settlements_covered, (BigInt(balance) / (ETH / 10n)).toString());
});

test('x402 settlements: the settlement with its invoice, amount, gas spend and transaction; the filters narrow it', async (t) => {
  const { settlements } = await cli<{ settlements: SettlementRow[] }>(h.gw, 'settlements');
  t.is(settlements.length, 1);
  const row = settlements[0]!;
  t.like(row, {
    project_id: h.project.projectId,
    invoice_id: invoiceId,
    source: 'invoice',
    chain: 'eth',
    network: 'anvil',
    coin: 'usdc',
    amount: '2',
    amount_units: (2n * USDC).toString(),
    mode: 'gas_wallet',
    status: 'settled',
    tx_hash: settled.transaction,
    gas_address: h.gasWallet.address.toLowerCase(),
    error_reason: null,
  });
  t.is(row.spend!.unit, 'ETH');
  t.is(row.spend!.units, String(row.spend_units));
  t.truthy(row.settled_at_iso);
  t.is(
    (await cli<{ settlements: SettlementRow[] }>(h.gw, 'settlements', { status: 'settled', project: h.project.projectId, limit: '1' })).settlements.length,
    1,
  );
  t.deepEqual((await cli<{ settlements: SettlementRow[] }>(h.gw, 'settlements', { status: 'failed' })).settlements, []);
  t.deepEqual((await cli<{ settlements: SettlementRow[] }>(h.gw, 'settlements', { project: newId() })).settlements, []);
});

test('the counters: one settled settlement on eth/anvil, and the wei its gas wallet signed for', async (t) => {
  const { registry } = h.gw.kernel.cradle.metrics;
  const [row] = await h.gw.kernel.cradle.x402Settlements.list({ limit: 1 });
  const settlements = (await registry.getSingleMetric('gateway_x402_settlements_total')!.get()).values;
  t.deepEqual(
    settlements.map((v) => [v.labels, v.value]),
    [[{ chain: 'eth', network: 'anvil', result: 'settled' }, 1]],
  );
  const spent = (await registry.getSingleMetric('gateway_x402_gas_spent_units')!.get()).values;
  t.deepEqual(
    spent.map((v) => [v.labels, v.value]),
    [[{ chain: 'eth', network: 'anvil' }, Number(row!.spend_units)]],
  );
});

test('readiness: the gas wallet’s key is read and its balance pays for settlements at the cap; no facilitator is asked in gas_wallet mode', async (t) => {
  const findings = await x402Findings(h.gw);
  t.like(findings['x402.gas-wallets'], { ok: true, severity: null });
  t.true(findings['x402.gas-wallets']!.detail.includes(h.gasWallet.address));
  t.like(findings['x402.facilitator'], { ok: true, detail: 'plugins.x402.settlement is gas_wallet: no external facilitator is asked.' });
});

test('readiness warns when a gas wallet holds less than one settlement at its cap, naming the address; the status says it pays for none', async (t) => {
  const capAbove = { privateKeyFile: h.gasKeyFile, maxPerSettlementUnits: (100n * ETH).toString(), maxPerDayUnits: (1000n * ETH).toString() };
  const gw = await h.second({ 'plugins.x402.gasWallets': { eth: { anvil: capAbove } } });
  const finding = (await x402Findings(gw))['x402.gas-wallets']!;
  t.like(finding, { ok: false, severity: 'warning' });
  t.regex(finding.detail, /eth\.anvil's gas wallet 0x[0-9a-fA-F]{40} holds 9\.\d+ ETH, less than one settlement at its cap \(100 ETH\)/);
  t.true(finding.detail.includes(h.gasWallet.address));
  t.true(finding.fix!.includes(h.gasWallet.address));
  const { x402 } = await cli<{ x402: X402StatusView }>(gw, 'status');
  t.is(x402.gas_wallets[0]!.settlements_covered, '0');
});

test('readiness: a gas wallet key file that holds no key is an error that names the file, never its content', async (t) => {
  const bad = join(dir, 'not-a-key');
  const content = '0xnot-a-key-but-secret-looking';
  await writeFile(bad, content, { mode: 0o600 });
  await chmod(bad, 0o600);
  const { cradle } = h.gw.kernel;
  const config = { ...cradle.x402Config, gasWallets: { eth: { anvil: { ...GAS_CAPS, privateKeyFile: bad } } } };
  const wallets = new GasWallets({
    db: cradle.db,
    logger: cradle.logger,
    x402Config: config,
    watchersOutputs: cradle.watchersOutputs,
    addressPoolService: cradle.addressPoolService,
    x402Metrics: cradle.x402Metrics,
  });
  // The same checks over the same services, with the bad key file's config (a gateway with it does not start).
  const view = new Proxy(cradle, { get: (target, name) => (name === 'x402Config' ? config : name === 'x402GasWallets' ? wallets : Reflect.get(target, name)) });
  const checks = buildDeclared(x402Readiness, view as Cradle, 'test');
  const report = await runReadinessChecks(checks);
  const finding = report.checks.find((f) => f.check === 'x402.gas-wallets')!;
  t.like(finding, { ok: false, severity: 'error' });
  t.true(finding.detail.includes(bad), finding.detail);
  t.false(finding.detail.includes(content));
  t.false(report.ready);
});

test('facilitator mode against a second gateway as the external facilitator: /supported answers and lists the payable network; the status shows its signer', async (t) => {
  const authorization = join(dir, 'facilitator-authorization');
  await writeFile(authorization, `Bearer ${facilitatorToken(h.project.projectId, h.project.secret)}\n`, { mode: 0o600 });
  const gw = await h.second({
    'plugins.x402.settlement': 'facilitator',
    'plugins.x402.facilitator': { url: `${h.gw.url}/api/v1/x402/facilitator`, authorizationFile: authorization },
  });
  const findings = await x402Findings(gw);
  t.like(findings['x402.facilitator'], { ok: true, severity: null });
  t.true(findings['x402.facilitator']!.detail.includes(ANVIL_CAIP));
  t.like(findings['x402.gas-wallets'], { ok: true, detail: 'plugins.x402.settlement is facilitator: no gas wallet is used (eth.anvil configured).' });
  const { x402 } = await cli<{ x402: X402StatusView }>(gw, 'status');
  t.deepEqual(x402.facilitator, {
    url: `${h.gw.url}/api/v1/x402/facilitator`,
    in_use: true,
    answers: true,
    networks: [ANVIL_CAIP],
    missing_networks: [],
    signers: [h.gasWallet.address],
    error: null,
  });
  t.deepEqual(x402.gas_wallets, [], 'no gas wallet is used in facilitator mode');
  t.is(x402.assets.length, 1);
});

test('facilitator mode: a facilitator that refuses the credential is an error of x402.facilitator, and the status says why', async (t) => {
  const gw = await h.second({
    'plugins.x402.settlement': 'facilitator',
    'plugins.x402.facilitator': { url: `${h.gw.url}/api/v1/x402/facilitator` },
  });
  const finding = (await x402Findings(gw))['x402.facilitator']!;
  t.like(finding, { ok: false, severity: 'error' });
  t.regex(finding.detail, /does not answer GET \/supported/);
  const { x402 } = await cli<{ x402: X402StatusView }>(gw, 'status');
  t.like(x402.facilitator, { answers: false, in_use: true, networks: [], missing_networks: [] });
  t.truthy(x402.facilitator!.error);
});
