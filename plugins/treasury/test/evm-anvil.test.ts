/**
 * Account-chain plans (issue 36) end to end on a real EVM node: anvil with the Prague rules
 * (EIP-7702), a Multicall3, an ERC-20 (`tok`) and an EIP-3009 token (`usdc`), set up by
 * `EvmTreasuryChain` (@gw/testing) and run by the gateway as eth on the network `anvil`. Invoices are
 * paid by real transfers and seen by the watchers; plans are built by the real EVM account treasury,
 * their files fetched over REST and signed here with ethers wallets of the test mnemonic (the test
 * is the offline signer), imported, broadcast stage by stage and tracked on the node; the same
 * flows through the operator CLI and the MCP tools.
 */
import test, { type ExecutionContext } from 'ava';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppError } from '@gw/kernel';
import { signedFetch, type TestKernel, waitFor } from '@gw/kernel/testing';
import { tokenSweeperInitCode } from '@gw/chain-evm';
import { EvmTreasuryChain, type TestProject } from '@gw/testing';
import { callOk, patClient } from '@gw/plugin-mcp/testing';
import { Interface, Transaction, Wallet } from 'ethers';
import { fileStep, startAnvilTreasury, trackUntilConfirmed as trackUntil, type AnvilTreasury } from './anvil-treasury.js';
import { treasuryApi } from './treasury-helpers.js';
import { scanOnce } from '@gw/plugin-watchers/testing';

let chain: EvmTreasuryChain;
let gw: TestKernel;
let project: TestProject;
let token: string;
let sweeper: string;
let keyDir: string;
let cli: AnvilTreasury['cli'];
const destination = EvmTreasuryChain.freshAddress();

test.before(async () => {
  ({ chain, gw, project, token, cli } = await startAnvilTreasury({
    operator: 'treasury-evm',
    poolSize: 40,
    network: async (chain) => {
      sweeper = await chain.anvil.deploy(chain.funder, tokenSweeperInitCode(destination));
      return { operatorAccounts: { gas: { address: chain.gasAccount.address, path: chain.gasAccount.path } }, sweepers: { [destination]: sweeper } };
    },
  }));
  keyDir = await mkdtemp(join(tmpdir(), 'treasury-hot-gas-'));
  await writeFile(join(keyDir, 'gas.key'), chain.gasWallet.privateKey, { mode: 0o600 });
});
test.after.always(async () => {
  await gw?.close();
  await chain?.stop();
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
});

const api = treasuryApi(
  () => gw,
  () => token,
);
const scan = () => scanOnce(gw, 'eth', 'anvil');
const ACCOUNTS = '/api/v1/treasury/accounts';

/** Invoices of `coin` paid in full by real transfers from anvil's funder, seen by the watchers; their addresses. */
async function paidInvoices(coin: 'tok' | 'usdc' | 'eth', amounts: readonly string[]): Promise<string[]> {
  const addresses: string[] = [];
  for (const amount of amounts) {
    const created = await signedFetch(gw.url, '/api/v1/invoices', {
      ...project,
      method: 'POST',
      body: { external_id: `t-${Math.random().toString(36).slice(2)}`, coin, amount_crypto: amount },
    });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    const units = BigInt(created.body.amount_units ?? 0) || parseUnits(amount, coin === 'usdc' ? 6 : 18);
    if (coin === 'eth') await chain.anvil.sendEth(chain.funder, created.body.address, units);
    else await chain.anvil.sendToken(coin === 'tok' ? chain.contracts.erc20 : chain.contracts.eip3009, chain.funder, created.body.address, units);
    addresses.push(created.body.address);
  }
  await chain.anvil.mine(2);
  await scan();
  return addresses;
}

function parseUnits(amount: string, decimals: number): bigint {
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0'));
}

/** Signs every step of a plan file with the key its signer names (deposit path, or the gas account): the signed file's text. */
function signFile(file: any, tamper?: (id: string, signed: string) => string): string {
  return JSON.stringify({
    format: 'gateway-treasury-account-signed',
    version: 1,
    plan_id: file.plan_id,
    chain: file.chain,
    network: file.network,
    round: file.round,
    signed: file.steps.map((s: any) => {
      const signed = chain.sign(fileStep(s));
      return { id: s.id, signed: tamper ? tamper(s.id, signed) : signed };
    }),
  });
}

const trackUntilConfirmed = (planId: string) => trackUntil(gw, chain, api, planId);

/** A gas top-up plan of `tok` to `destination`, its file signed and imported, its first stage broadcast: the plan as created and its file. */
async function broadcastTopUp(t: ExecutionContext): Promise<{ plan: any; file: any }> {
  const plan = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'gas_top_up' })).body;
  const file = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
  t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) })).body.status, 'signed');
  t.like((await api('POST', `${ACCOUNTS}/plans/${plan.id}/broadcast`)).body, { status: 'broadcast', stage: 1 });
  return { plan, file };
}

const sum = (values: readonly bigint[]) => values.reduce((a, b) => a + b, 0n);
const TOK_AMOUNTS = Array.from({ length: 20 }, (_, i) => `${i + 1}.5`);
let tokAddresses: string[] = [];

test.serial('twenty paid invoices: holdings per address with the gas each token address lacks; a quote shows each method’s cost', async (t) => {
  tokAddresses = await paidInvoices('tok', TOK_AMOUNTS);
  const holdings = await api('GET', `${ACCOUNTS}/holdings?chain=eth&network=anvil`);
  t.is(holdings.status, 200, JSON.stringify(holdings.body));
  t.is(holdings.body.holdings.length, 20);
  for (const [i, address] of tokAddresses.entries()) {
    const h = holdings.body.holdings.find((x: any) => x.address === address);
    t.is(h.balances.tok, parseUnits(TOK_AMOUNTS[i]!, 18).toString());
    const cost = h.tokens.find((c: any) => c.coin === 'tok');
    t.true(BigInt(cost.gas_lacking_units) > 0n, 'no ETH there: all its gas is lacking');
    t.is(cost.gas_lacking_units, cost.move_cost_units);
    t.false(cost.dust);
  }
  const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'tok', destination });
  t.is(quote.status, 200, JSON.stringify(quote.body));
  t.is(quote.body.sources, 20);
  const byMethod = Object.fromEntries(quote.body.quotes.map((q: any) => [q.method, q]));
  t.true(byMethod['gas_top_up'].available);
  t.true(byMethod['eip7702'].available, 'a sweeper is configured for this destination');
  t.false(byMethod['eip3009'].available);
  t.is(byMethod['gas_top_up'].moved_units, sum(TOK_AMOUNTS.map((a) => parseUnits(a, 18))).toString());
  t.true(BigInt(byMethod['gas_top_up'].fee_units) > 0n);
});

test.serial(
  'gas top-up over the twenty: a tampered signed file is refused; signed with the mnemonic’s wallets, broadcast in stages, balances end at zero and the destination holds the sum',
  async (t) => {
    const created = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'gas_top_up' });
    t.is(created.status, 201, JSON.stringify(created.body));
    const plan = created.body;
    t.like(plan, { kind: 'sweep', method: 'gas_top_up', status: 'awaiting_signature', round: 1, rounds: 1, stage: null });
    t.is(plan.addresses.length, 20);
    t.deepEqual([...new Set(plan.steps.map((s: any) => s.stage))].sort(), [1, 2]);
    const file = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
    t.is(file.steps.length, plan.steps.length);

    // A second plan over the same addresses is refused while this one is open.
    const second = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'gas_top_up' });
    t.is(second.status, 422);
    t.is(second.body.error_code, 'treasury_nothing_to_move');

    // One transfer re-signed to another recipient: refused, nothing stored.
    const victim = file.steps.find((s: any) => s.signer.kind === 'deposit').id;
    const tampered = signFile(file, (id, signed) => {
      if (id !== victim) return signed;
      const tx = Transaction.from(signed);
      const forged = Transaction.from({ ...tx.toJSON(), signature: null, to: Wallet.createRandom().address });
      const wallet = new Wallet(chain.root.derivePath(file.steps.find((s: any) => s.id === id).signer.path).privateKey);
      forged.signature = wallet.signingKey.sign(forged.unsignedHash);
      return forged.serialized;
    });
    const refused = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: tampered });
    t.is(refused.status, 422, JSON.stringify(refused.body));
    t.is(refused.body.error_code, 'treasury_signed_mismatch');
    t.is((await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body.status, 'awaiting_signature');

    const signedText = signFile(file);
    const imported = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signedText });
    t.is(imported.status, 200, JSON.stringify(imported.body));
    t.is(imported.body.status, 'signed');
    t.true(imported.body.steps.every((s: any) => s.status === 'signed' && s.signed_by === 'offline'));
    // The same file again answers as the first time.
    t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signedText })).body.status, 'signed');

    const sent = await api('POST', `${ACCOUNTS}/plans/${plan.id}/broadcast`);
    t.is(sent.status, 200, JSON.stringify(sent.body));
    t.like(sent.body, { status: 'broadcast', stage: 1 });
    t.true(
      sent.body.steps.filter((s: any) => s.stage === 2).every((s: any) => s.status === 'signed'),
      'the transfers wait for their top-ups',
    );
    const done = await trackUntilConfirmed(plan.id);
    t.is(done.status, 'confirmed');
    t.true(done.steps.every((s: any) => s.status === 'confirmed'));

    for (const address of tokAddresses) t.is(await chain.balanceOf(chain.contracts.erc20, address), 0n);
    t.is(await chain.balanceOf(chain.contracts.erc20, destination), sum(TOK_AMOUNTS.map((a) => parseUnits(a, 18))));
    const after = await api('GET', `${ACCOUNTS}/holdings?chain=eth&network=anvil`);
    t.true(after.body.holdings.every((h: any) => h.balances.tok === '0' && h.plan_id === null));
    const list = await api('GET', `${ACCOUNTS}/plans?chain=eth`);
    t.is(list.body.plans[0].id, plan.id);
  },
);

test.serial('a plan whose nonce went stale is refused whole before any broadcast, and fails', async (t) => {
  const addresses = await paidInvoices('eth', ['0.05', '0.06']);
  const plan = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'eth', destination, method: 'native' })).body;
  t.is(plan.method, 'native', JSON.stringify(plan));
  const file = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
  t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) })).body.status, 'signed');
  // The owner of the seed spends from one of the addresses elsewhere meanwhile: its nonce moves on.
  const spender = file.steps.find((s: any) => addresses.includes(s.signer.address));
  await chain.spendElsewhere(spender.signer.path);

  const refused = await api('POST', `${ACCOUNTS}/plans/${plan.id}/broadcast`);
  t.is(refused.status, 409, JSON.stringify(refused.body));
  t.is(refused.body.error_code, 'treasury_nonce_stale');
  const failed = (await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body;
  t.is(failed.status, 'failed');
  t.regex(failed.failure, /treasury_nonce_stale/);
  t.true(
    failed.steps.every((s: any) => s.status === 'signed'),
    'nothing was sent',
  );
  for (const step of failed.steps) t.is(await chain.anvil.rpc('eth_getTransactionByHash', [step.txid]), null);
});

test.serial(
  'EIP-3009 in two rounds: authorizations signed first, then the gas address’s submission built from them and signed in a second sitting',
  async (t) => {
    const amounts = ['3.25', '4.5', '7'];
    const addresses = await paidInvoices('usdc', amounts);
    const before = await chain.balanceOf(chain.contracts.eip3009, destination);
    const plan = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'usdc', destination, method: 'eip3009' })).body;
    t.like(plan, { method: 'eip3009', rounds: 2, round: 1 }, JSON.stringify(plan));
    const round1 = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
    t.is(round1.round, 1);
    t.true(round1.steps.every((s: any) => s.kind === 'authorization' && s.signer.kind === 'deposit'));
    const afterRound1 = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(round1) });
    t.is(afterRound1.status, 200, JSON.stringify(afterRound1.body));
    t.like(afterRound1.body, { status: 'awaiting_signature', round: 2 });
    const round2 = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
    t.is(round2.round, 2);
    t.true(round2.steps.length > 0 && round2.steps.every((s: any) => s.signer.kind === 'operator' && s.signer.role === 'gas'));
    // Round 1's file again is no longer what the plan awaits, but answers as it did.
    t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(round1) })).status, 200);
    const signed = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(round2) });
    t.is(signed.body.status, 'signed', JSON.stringify(signed.body));
    t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/broadcast`)).status, 200);
    t.is((await trackUntilConfirmed(plan.id)).status, 'confirmed');
    for (const address of addresses) t.is(await chain.balanceOf(chain.contracts.eip3009, address), 0n);
    t.is(await chain.balanceOf(chain.contracts.eip3009, destination), before + sum(amounts.map((a) => parseUnits(a, 6))));
  },
);

/** Turns the hot gas wallet on for eth/anvil with these caps (the wallet reads its settings at each signature). */
function hotGasWallet(maxPerTransactionUnits: string, maxPerDayUnits: string): void {
  const settings = gw.kernel.cradle.treasuryConfig.networks['eth']!['anvil']! as Record<string, unknown>;
  settings['hotGasWallet'] = { privateKeyFile: join(keyDir, 'gas.key'), maxPerTransactionUnits, maxPerDayUnits };
}

test.serial('EIP-7702 with the hot gas wallet: one offline sitting, the submission signed by the gas wallet; deposit addresses never needed gas', async (t) => {
  hotGasWallet('1000000000000000000', '5000000000000000000');
  const amounts = ['2', '3', '5'];
  const addresses = await paidInvoices('tok', amounts);
  const before = await chain.balanceOf(chain.contracts.erc20, destination);
  const plan = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'eip7702' })).body;
  t.like(plan, { method: 'eip7702', rounds: 2 }, JSON.stringify(plan));
  const round1 = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
  // Imported with `broadcast`: once every round is signed, the job sends the first stage.
  const signed = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(round1), broadcast: true });
  t.is(signed.status, 200, JSON.stringify(signed.body));
  t.like(signed.body, { status: 'signed', round: 2 });
  const submissions = signed.body.steps.filter((s: any) => s.round === 2);
  t.true(submissions.length > 0 && submissions.every((s: any) => s.signed_by === 'hot_gas_wallet'));
  await waitFor(async () => (await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body.status !== 'signed', 20_000);
  t.is((await trackUntilConfirmed(plan.id)).status, 'confirmed');
  for (const address of addresses) {
    t.is(await chain.balanceOf(chain.contracts.erc20, address), 0n);
    t.is(await chain.ethBalance(address), 0n, 'no gas was ever sent there');
  }
  t.is(await chain.balanceOf(chain.contracts.erc20, destination), before + sum(amounts.map((a) => parseUnits(a, 18))));
});

test.serial('the hot gas wallet refuses what is not a planned top-up or submission, and anything over its cap', async (t) => {
  hotGasWallet('1000000000000000000', '5000000000000000000');
  const { treasuryHotGasWallet: hot, treasuryAccountNetworks: networks, db } = gw.kernel.cradle;
  const target = networks.get('eth', 'anvil');
  await paidInvoices('usdc', ['1.5', '2.5']);
  const plan = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'usdc', destination, method: 'eip3009' })).body;
  const refusal = async (planId: string, stepId: string) =>
    (await t.throwsAsync<AppError>(db.transaction((trx) => hot.sign(trx, target, planId, stepId))))!.code;
  // No such plan or step: nothing outside a plan reaches the key.
  t.is(await refusal('01JZZZZZZZZZZZZZZZZZZZZZZZ', 'submit-0'), 'treasury_hot_wallet_refused');
  t.is(await refusal(plan.id, 'made-up'), 'treasury_hot_wallet_refused');
  // A deposit address's authorization is not the gas wallet's to sign.
  t.is(await refusal(plan.id, plan.steps[0].id), 'treasury_hot_wallet_refused');

  // Over the cap per transaction: the import is refused whole and the plan still awaits round 1.
  hotGasWallet('1', '5000000000000000000');
  const file = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
  const capped = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) });
  t.is(capped.status, 422, JSON.stringify(capped.body));
  t.is(capped.body.error_code, 'treasury_hot_wallet_cap_exceeded');
  const unchanged = (await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body;
  t.like(unchanged, { status: 'awaiting_signature', round: 1 });
  t.true(unchanged.steps.every((s: any) => s.status === 'awaiting_signature'));

  // Within the caps the same file goes through; cancelled before broadcast, its addresses are free again.
  hotGasWallet('1000000000000000000', '5000000000000000000');
  t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) })).body.status, 'signed');
  const cancelled = await api('POST', `${ACCOUNTS}/plans/${plan.id}/cancel`);
  t.is(cancelled.body.status, 'cancelled');
  const again = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'usdc', destination });
  t.is(again.body.sources, 2);

  // The day's cap counts what it already signed in the last 24 hours (the EIP-7702 submission, this plan's).
  hotGasWallet('1000000000000000000', '1000');
  const replanned = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'usdc', destination, method: 'eip3009' })).body;
  const dayFile = (await api('GET', `${ACCOUNTS}/plans/${replanned.id}/file`)).body;
  const overDay = await api('POST', `${ACCOUNTS}/plans/${replanned.id}/signed`, { signed: signFile(dayFile) });
  t.is(overDay.body.error_code, 'treasury_hot_wallet_cap_exceeded');
  t.is(overDay.body.details.cap, 'day');
  t.true(BigInt(overDay.body.details.spent_units) > 0n);
  await api('POST', `${ACCOUNTS}/plans/${replanned.id}/cancel`);
  hotGasWallet('1000000000000000000', '5000000000000000000');
});

test.serial('a transfer that fails on chain fails the plan: its later stages are never sent and its addresses are free again', async (t) => {
  await paidInvoices('tok', ['1', '2']);
  const { plan } = await broadcastTopUp(t);
  // While the top-ups confirm, the token stops working (its code replaced by one that always reverts).
  const code = await chain.anvil.rpc<string>('eth_getCode', [chain.contracts.erc20, 'latest']);
  await chain.anvil.rpc('anvil_setCode', [chain.contracts.erc20, '0x60006000fd']);
  try {
    // Stage 1 confirms, the transfers are sent and revert; the pass that sees them fails the plan.
    const failedIn: string[] = [];
    for (let pass = 0; pass < 10 && failedIn.length === 0; pass++) {
      failedIn.push(...(await gw.kernel.cradle.treasuryAccountBroadcaster.track()).failed);
      await chain.anvil.mine(1);
    }
    t.deepEqual(failedIn, [plan.id]);
  } finally {
    await chain.anvil.rpc('anvil_setCode', [chain.contracts.erc20, code]);
  }
  const failed = (await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body;
  t.is(failed.status, 'failed');
  t.regex(failed.failure, /failed on chain/);
  t.true(failed.steps.some((s: any) => s.status === 'failed'));
  // Every transfer of the failed stage was sent: each is followed to its end, none left `broadcast`.
  await gw.kernel.cradle.treasuryAccountBroadcaster.track();
  const settled = (await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body;
  t.deepEqual(
    settled.steps.filter((s: any) => s.stage === 2).map((s: any) => s.status),
    ['failed', 'failed'],
  );
  const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'tok', destination });
  t.is(quote.body.sources, 2, 'the addresses are free for a new plan');
});

test.serial(
  'the accounting export lists the confirmed account plans per project with their method and fees; the gauges count what the hot gas wallet signed',
  async (t) => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const moved = await api('GET', `/api/v1/treasury/moved-out?from=${from}&to=${to}`);
    t.is(moved.status, 200, JSON.stringify(moved.body));
    const topUp = moved.body.rows.find((r: any) => r.method === 'gas_top_up');
    t.like(topUp, { chain: 'eth', network: 'anvil', coin: 'tok', kind: 'sweep', project_id: project.projectId, destination });
    t.is(topUp.value_units, sum(TOK_AMOUNTS.map((a) => parseUnits(a, 18))).toString());
    t.true(BigInt(topUp.fee_units) > 0n);
    t.deepEqual(moved.body.rows.map((r: any) => r.method).sort(), ['eip3009', 'eip7702', 'gas_top_up']);

    const metrics = await gw.kernel.cradle.metrics.registry.metrics();
    const hot = /gateway_treasury_hot_gas_signed_units\{chain="eth",network="anvil"\} (\d+)/.exec(metrics);
    t.truthy(
      hot,
      metrics
        .split('\n')
        .filter((l) => l.includes('treasury'))
        .join('\n'),
    );
    t.true(Number(hot![1]) > 0);
  },
);

test.serial('the operator CLI: holdings, quote, sweep with its round files, import of each round, broadcast (--json)', async (t) => {
  const amounts = ['6', '8'];
  const paid = await paidInvoices('usdc', amounts);
  const before = await chain.balanceOf(chain.contracts.eip3009, destination);
  const holdings = await cli('treasury', 'holdings', '--chain', 'eth', '--network', 'anvil', '--json');
  t.is(holdings.code, 0, holdings.stderr);
  for (const [i, address] of paid.entries()) {
    t.is(holdings.json.holdings.find((h: any) => h.address === address).balances.usdc, parseUnits(amounts[i]!, 6).toString());
  }
  const quote = await cli('treasury', 'quote', '--chain', 'eth', '--network', 'anvil', '--coin', 'usdc', '--to', destination, '--json');
  t.true(quote.json.quotes.some((q: any) => q.method === 'eip3009' && q.available));

  const dir = await mkdtemp(join(tmpdir(), 'treasury-cli-'));
  try {
    const round1 = join(dir, 'round1.json');
    const swept = await cli(
      'treasury',
      'sweep',
      '--chain',
      'eth',
      '--network',
      'anvil',
      '--coin',
      'usdc',
      '--to',
      destination,
      '--method',
      'eip3009',
      '--out',
      round1,
      '--json',
    );
    t.is(swept.code, 0, swept.stderr);
    const planId = swept.json.plan.id;
    const signed1 = join(dir, 'signed1.json');
    await writeFile(signed1, signFile(JSON.parse(await readFile(round1, 'utf8'))));
    const imported1 = await cli('treasury', 'import', '--file', signed1, '--json');
    t.like(imported1.json.plan, { status: 'awaiting_signature', round: 2 });
    const round2 = join(dir, 'round2.json');
    t.is((await cli('treasury', 'show', '--plan', planId, '--out', round2, '--json')).code, 0);
    const signed2 = join(dir, 'signed2.json');
    await writeFile(signed2, signFile(JSON.parse(await readFile(round2, 'utf8'))));
    t.is((await cli('treasury', 'import', '--file', signed2, '--json')).json.plan.status, 'signed');
    t.like((await cli('treasury', 'broadcast', '--plan', planId, '--json')).json.plan, { status: 'broadcast', stage: 1 });
    t.is((await trackUntilConfirmed(planId)).status, 'confirmed');
    // Every address holding usdc outside an open plan: these two and those of the plans cancelled above.
    t.true(BigInt(swept.json.plan.moved_units) >= sum(amounts.map((a) => parseUnits(a, 6))));
    t.is(await chain.balanceOf(chain.contracts.eip3009, destination), before + BigInt(swept.json.plan.moved_units));
    for (const address of paid) t.is(await chain.balanceOf(chain.contracts.eip3009, address), 0n);
    const listed = await cli('treasury', 'list', '--json');
    t.is(listed.json.account_plans[0].id, planId);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.serial('MCP: the project’s holdings, each method’s cost, and a proposed plan that moves nothing until signed offline', async (t) => {
  const amounts = ['9', '11'];
  const paid = await paidInvoices('usdc', amounts);
  const client = await patClient(gw, token);
  const holdings = await callOk(client, 'get_treasury_holdings', { project_id: project.projectId, chain: 'eth', network: 'anvil' });
  for (const [i, address] of paid.entries()) {
    t.is(holdings.holdings.find((h: any) => h.address === address).balances.usdc, parseUnits(amounts[i]!, 6).toString());
  }
  const quote = await callOk(client, 'quote_treasury_sweep', { project_id: project.projectId, chain: 'eth', network: 'anvil', coin: 'usdc', destination });
  t.true(quote.quotes.some((q: any) => q.method === 'eip3009' && q.available));
  const plan = await callOk(client, 'propose_treasury_account_plan', {
    project_id: project.projectId,
    chain: 'eth',
    network: 'anvil',
    coin: 'usdc',
    destination,
    method: 'eip3009',
  });
  t.like(plan, { kind: 'sweep', method: 'eip3009', status: 'awaiting_signature', round: 1, destination });
  t.true(plan.steps.every((s: any) => s.status === 'awaiting_signature'));
  for (const address of paid) t.is(await chain.balanceOf(chain.contracts.eip3009, address), parseUnits(amounts[paid.indexOf(address)]!, 6));
  await client.close();
  t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/cancel`)).body.status, 'cancelled');
});

// Review of issue 36's account plans: the findings, each shown on the node.

const stepsOf = (planId: string) => gw.kernel.cradle.db('treasury_plan_steps').where({ plan_id: planId }).orderBy('id');

test.serial('one address is in one open plan whatever the coin; a plan needing the gas address waits while another has its transactions unsent', async (t) => {
  // Two swept token addresses receive tok again (the two of the failed plan above still hold theirs).
  for (const address of tokAddresses.slice(0, 2)) await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, address, 10n ** 18n);
  const topUp = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'gas_top_up' });
  t.is(topUp.status, 201, JSON.stringify(topUp.body));
  // One of its addresses also receives ETH: a native sweep must not plan it (its nonce is the top-up plan's).
  const shared = topUp.body.addresses[0].address;
  await chain.anvil.sendEth(chain.funder, shared, 10n ** 16n);
  const native = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'eth', destination, method: 'native' });
  t.is(native.status, 201, JSON.stringify(native.body));
  t.false(
    native.body.addresses.some((a: any) => a.address === shared),
    'the address is held by the token plan',
  );
  t.false(native.body.steps.some((s: any) => s.signer.address === shared));

  // The top-ups are the gas address's next nonces: an EIP-3009 plan (its submissions the gas address's too) is refused meanwhile.
  const usdc = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'usdc', destination, method: 'eip3009' });
  t.is(usdc.status, 409, JSON.stringify(usdc.body));
  t.is(usdc.body.error_code, 'treasury_outputs_planned');
  t.is(usdc.body.details.plan_id, topUp.body.id);

  t.is((await api('POST', `${ACCOUNTS}/plans/${native.body.id}/cancel`)).body.status, 'cancelled');
  t.is((await api('POST', `${ACCOUNTS}/plans/${topUp.body.id}/cancel`)).body.status, 'cancelled');
  const after = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'usdc', destination, method: 'eip3009' });
  t.is(after.status, 201, JSON.stringify(after.body));
  // Before its round 2 is built, its submissions still count as the gas address's: a top-up plan waits.
  const waiting = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'gas_top_up' });
  t.is(waiting.status, 409, JSON.stringify(waiting.body));
  t.is((await api('POST', `${ACCOUNTS}/plans/${after.body.id}/cancel`)).body.status, 'cancelled');
});

test.serial('an account that moves on between stages fails the plan before the later stage: nothing is sent into the conflict', async (t) => {
  const { plan, file } = await broadcastTopUp(t);
  t.is(plan.method, 'gas_top_up', JSON.stringify(plan));
  await chain.anvil.mine(1);
  // The owner of the seed spends from a deposit address elsewhere, at the nonce of its planned transfer.
  const transfer = file.steps.find((s: any) => s.signer.kind === 'deposit');
  await chain.anvil.sendEth(chain.funder, transfer.signer.address, 10n ** 16n);
  await chain.spendElsewhere(transfer.signer.path);
  await chain.anvil.mine(1);

  const failedIn: string[] = [];
  for (let pass = 0; pass < 5 && failedIn.length === 0; pass++) {
    failedIn.push(...(await gw.kernel.cradle.treasuryAccountBroadcaster.track()).failed);
    await chain.anvil.mine(1);
  }
  t.deepEqual(failedIn, [plan.id]);
  const failed = (await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body;
  t.is(failed.status, 'failed');
  t.regex(failed.failure, /treasury_nonce_stale/);
  const stage2 = failed.steps.filter((s: any) => s.stage === 2);
  t.true(stage2.length > 0 && stage2.every((s: any) => s.status === 'signed'), JSON.stringify(stage2.map((s: any) => s.status)));
  for (const step of stage2) t.is(await chain.anvil.rpc('eth_getTransactionByHash', [step.txid]), null);
});

test.serial('a plan whose first stage went out in part (the provider dropped mid-stage) cannot be cancelled; its broadcast resumes', async (t) => {
  const plan = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'eth', destination, method: 'native' })).body;
  t.is(plan.method, 'native', JSON.stringify(plan));
  t.true(plan.steps.length >= 2);
  const file = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
  t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) })).body.status, 'signed');
  // What a broadcast leaves when its provider drops after the first transaction: that one sent and
  // marked, the plan still signed (the send and the mark as the broadcaster makes them).
  const [first] = await stepsOf(plan.id);
  await chain.anvil.rpc('eth_sendRawTransaction', [first.signed]);
  await gw.kernel.cradle.db('treasury_plan_steps').where({ id: first.id }).update({ status: 'broadcast', broadcast_at: new Date() });
  t.is((await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body.status, 'signed');

  const cancel = await api('POST', `${ACCOUNTS}/plans/${plan.id}/cancel`);
  t.is(cancel.status, 409, JSON.stringify(cancel.body));
  t.is(cancel.body.error_code, 'treasury_plan_not_cancellable');
  t.true(plan.addresses.length > 0);
  t.true((await gw.kernel.cradle.db('treasury_plan_addresses').where({ plan_id: plan.id, held: true })).length > 0, 'its addresses stay held');

  const resumed = await api('POST', `${ACCOUNTS}/plans/${plan.id}/broadcast`);
  t.is(resumed.status, 200, JSON.stringify(resumed.body));
  t.is((await trackUntilConfirmed(plan.id)).status, 'confirmed');
});

/** Replaces a stored step's unsigned transaction (what a tampered database would hand the hot gas wallet). */
async function tamperStep(id: string, change: (tx: Transaction) => Transaction): Promise<string> {
  const [row] = await gw.kernel.cradle.db('treasury_plan_steps').where({ id });
  const tx = change(Transaction.from(row.unsigned_data));
  await gw.kernel.cradle.db('treasury_plan_steps').where({ id }).update({ unsigned_data: tx.unsignedSerialized });
  return row.unsigned_data;
}

test.serial('the hot gas wallet reads what it signs: a stored top-up or submission altered in the database is refused', async (t) => {
  hotGasWallet('1000000000000000000', '5000000000000000000');
  // The token addresses again, their ETH swept above: a top-up plan whose top-ups the hot wallet signs.
  const plan = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'gas_top_up' })).body;
  t.is(plan.method, 'gas_top_up', JSON.stringify(plan));
  const file = (await api('GET', `${ACCOUNTS}/plans/${plan.id}/file`)).body;
  const topUps = (await stepsOf(plan.id)).filter((s: any) => s.signer_kind === 'operator');
  t.true(topUps.length > 0);
  const victim = topUps[0];
  const attacker = Wallet.createRandom().address;
  const tampers: [string, (tx: Transaction) => Transaction][] = [
    ['to another address', (tx) => Object.assign(tx.clone(), { to: attacker })],
    ['a larger value', (tx) => Object.assign(tx.clone(), { value: tx.value + 10n ** 17n })],
    ['another chain', (tx) => Object.assign(tx.clone(), { chainId: 1n })],
    ['with data', (tx) => Object.assign(tx.clone(), { data: '0xa9059cbb' })],
  ];
  for (const [what, change] of tampers) {
    const original = await tamperStep(victim.id, change);
    const refused = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) });
    t.is(refused.status, 422, `${what}: ${JSON.stringify(refused.body)}`);
    t.is(refused.body.error_code, 'treasury_hot_wallet_refused', what);
    await gw.kernel.cradle.db('treasury_plan_steps').where({ id: victim.id }).update({ unsigned_data: original });
  }
  // A gas address that is a pool address (it receives payments) is never signed for, whatever the key.
  const [stored] = await gw.kernel.cradle.db('treasury_plan_steps').where({ id: victim.id });
  const [deposit] = await gw.kernel.cradle.db('treasury_plan_addresses').where({ plan_id: plan.id });
  await gw.kernel.cradle.db('treasury_plan_steps').where({ id: victim.id }).update({ signer_address: deposit.address });
  const pool = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) });
  t.is(pool.body.error_code, 'treasury_hot_wallet_refused', JSON.stringify(pool.body));
  t.regex(pool.body.message, /is a pool address that receives payments/);
  await gw.kernel.cradle.db('treasury_plan_steps').where({ id: victim.id }).update({ signer_address: stored.signer_address });
  const signed = await api('POST', `${ACCOUNTS}/plans/${plan.id}/signed`, { signed: signFile(file) });
  t.is(signed.body.status, 'signed', JSON.stringify(signed.body));
  // What the daily cap sums is the signed transaction's own most it may spend.
  for (const step of (await stepsOf(plan.id)).filter((s: any) => s.signed_by === 'hot_gas_wallet')) {
    const tx = Transaction.from(step.signed);
    t.is(BigInt(step.hot_spend_units), tx.value + tx.gasLimit * tx.maxFeePerGas!);
  }
  t.is((await api('POST', `${ACCOUNTS}/plans/${plan.id}/cancel`)).body.status, 'cancelled');

  // EIP-3009 through Multicall3: round 2 awaits (no hot wallet then); one authorization's recipient is altered in the database.
  delete (gw.kernel.cradle.treasuryConfig.networks['eth']!['anvil']! as Record<string, unknown>)['hotGasWallet'];
  const usdc = (await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'usdc', destination, method: 'eip3009' })).body;
  t.is(usdc.method, 'eip3009', JSON.stringify(usdc));
  const round1 = (await api('GET', `${ACCOUNTS}/plans/${usdc.id}/file`)).body;
  t.like((await api('POST', `${ACCOUNTS}/plans/${usdc.id}/signed`, { signed: signFile(round1) })).body, { status: 'awaiting_signature', round: 2 });
  const submission = (await stepsOf(usdc.id)).find((s: any) => s.round === 2);
  const multicall = new Interface([
    'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
  ]);
  const eip3009 = new Interface([
    'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  ]);
  await tamperStep(submission.id, (tx) => {
    const calls = multicall.decodeFunctionData('aggregate3', tx.data)[0].map((c: any) => [c.target, c.allowFailure, c.callData]);
    const args = [...eip3009.decodeFunctionData('transferWithAuthorization', calls[0][2])];
    args[1] = attacker;
    calls[0][2] = eip3009.encodeFunctionData('transferWithAuthorization', args);
    return Object.assign(tx.clone(), { data: multicall.encodeFunctionData('aggregate3', [calls]) });
  });
  hotGasWallet('1000000000000000000', '5000000000000000000');
  const emptyRound2 = JSON.stringify({
    format: 'gateway-treasury-account-signed',
    version: 1,
    plan_id: usdc.id,
    chain: 'eth',
    network: 'anvil',
    round: 2,
    signed: [],
  });
  const refused = await api('POST', `${ACCOUNTS}/plans/${usdc.id}/signed`, { signed: emptyRound2 });
  t.is(refused.status, 422, JSON.stringify(refused.body));
  t.is(refused.body.error_code, 'treasury_hot_wallet_refused');
  t.regex(refused.body.message, /destination/);
  t.is((await api('POST', `${ACCOUNTS}/plans/${usdc.id}/cancel`)).body.status, 'cancelled');
});

test.serial('a signed file that is JSON but no object (null, an array, a number) is unreadable, never a 500', async (t) => {
  for (const text of ['null', '[]', '5', '"text"']) {
    const answer = await api('POST', `${ACCOUNTS}/plans/01JZZZZZZZZZZZZZZZZZZZZZZZ/signed`, { signed: text });
    t.is(answer.status, 400, `${text}: ${JSON.stringify(answer.body)}`);
    t.is(answer.body.error_code, 'treasury_signed_unreadable', text);
  }
});

test.serial('a sent transaction the chain never knows is sent again, then fails its plan after the limit, freeing its addresses', async (t) => {
  await paidInvoices('tok', ['1', '2']);
  const { plan } = await broadcastTopUp(t);
  // As if the provider had dropped it: the step's id is one the chain never saw.
  const db = gw.kernel.cradle.db;
  const [step] = await db('treasury_plan_steps').where({ plan_id: plan.id, status: 'broadcast' }).orderBy('id').limit(1);
  await db('treasury_plan_steps')
    .where({ id: step.id })
    .update({ txid: `0x${'ab'.repeat(32)}` });
  await gw.kernel.cradle.treasuryAccountBroadcaster.track();
  t.is((await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body.status, 'broadcast', 'within the limit it waits, sent again');
  await db('treasury_plan_steps')
    .where({ id: step.id })
    .update({ broadcast_at: new Date(Date.now() - 2 * 3_600_000) });
  const report = await gw.kernel.cradle.treasuryAccountBroadcaster.track();
  t.deepEqual(report.failed, [plan.id]);
  const failed = (await api('GET', `${ACCOUNTS}/plans/${plan.id}`)).body;
  t.is(failed.status, 'failed');
  t.regex(failed.failure, /not seen on chain/);
  const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'tok', destination });
  t.true(quote.body.sources >= 2, 'the addresses are free for a new plan');
});
