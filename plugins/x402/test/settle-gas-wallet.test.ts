/**
 * Settlement by the gateway's own gas wallet (issue 41, item 2) on a real anvil node and a real
 * PostgreSQL: `X402Settlements.settle` of payments a payer signed, the gas wallet's transaction
 * mined, the authorization's row; one transaction per authorization however many settlers ask at
 * once (two gateways on one database); the caps per settlement and per 24 hours refusing before
 * anything is sent; consecutive gas nonces; the receipt's outcomes (settled, reverted, not mined).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { TRANSFER_TOPIC } from '@gw/chain-evm';
import type { TestKernel } from '@gw/kernel/testing';
import { Wallet, zeroPadValue } from 'ethers';
import { treasuryChainErrors } from '@gw/kernel';
import { X402_REASONS } from '../src/protocol/reasons.js';
import { GAS_WALLET_REFUSAL_MESSAGES } from '../src/services/gas-wallets.js';
import type { X402Asset } from '../src/services/x402-networks.js';
import { GAS_CAPS, resourceOf, signPayment, startX402, USDC, type X402Harness } from './helpers.js';
import { SMALL_POOLS, settlementsWith, usdcAsset, verifiedPayment } from './settle-payment.js';

let h: X402Harness;
/** A second gateway on the same database and node, the same gas wallet. */
let other: TestKernel;
test.before(async () => {
  h = await startX402({ poolSize: 16 });
  other = await h.second(SMALL_POOLS);
});
test.after.always(() => h?.stop());

const settlements = (gw: TestKernel = h.gw) => gw.kernel.cradle.x402Settlements;
const gasAddress = () => h.gasWallet.address;
/** The gas wallet's next nonce, pending transactions counted (what a sent transaction would move). */
const pendingNonce = async () => Number(BigInt(await h.chain.anvil.rpc<string>('eth_getTransactionCount', [gasAddress(), 'pending'])));
const rowsOf = async (invoiceId: string) =>
  (await settlements().list({ projectId: h.project.projectId, limit: 1000 })).filter((r) => r.invoice_id === invoiceId);
/** The token's Transfer events from `from` to `to`, ever. */
async function transfers(from: string, to: string): Promise<number> {
  const topic = (address: string) => zeroPadValue(address.toLowerCase(), 32);
  const logs = await h.chain.anvil.rpc<unknown[]>('eth_getLogs', [
    { fromBlock: '0x0', toBlock: 'latest', address: h.usdc, topics: [TRANSFER_TOPIC, topic(from), topic(to)] },
  ]);
  return logs.length;
}
/** The settlement services under other caps of the same gas wallet (same database, same node). */
const withCaps = (caps: { maxPerSettlementUnits: string; maxPerDayUnits: string }) =>
  settlementsWith(h.gw, { gasWallets: { eth: { anvil: { privateKeyFile: h.gasKeyFile, ...caps } } } });

test.serial('one settlement: the gas wallet submits the authorization, it is mined, the row says settled, the invoice address holds the amount', async (t) => {
  const invoice = await h.invoice('1.25');
  const payer = await h.payer(5n * USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  const before = await h.sentCount(gasAddress());
  t.false(await settlements().known(payment.asset, payer.address, payment.authorization.nonce));

  const settled = await settlements().settle(payment);

  t.like(settled, { success: true, network: 'eip155:31337', payer: payer.address });
  t.regex(settled.transaction, /^0x[0-9a-f]{64}$/);
  t.is(await h.balanceOf(invoice.address), 1_250_000n);
  t.is(await h.balanceOf(payer.address), 5n * USDC - 1_250_000n);
  t.is(await h.sentCount(gasAddress()), before + 1);
  const tx = await h.chain.anvil.rpc<{ from: string; to: string; nonce: string }>('eth_getTransactionByHash', [settled.transaction]);
  t.is(tx.from.toLowerCase(), gasAddress().toLowerCase());
  t.is(tx.to.toLowerCase(), h.usdc.toLowerCase());
  t.is(Number(BigInt(tx.nonce)), before);

  const [row] = await rowsOf(invoice.id);
  t.like(row, {
    project_id: h.project.projectId,
    source: 'invoice',
    chain: 'eth',
    network: 'anvil',
    coin: 'usdc',
    payer: payer.address.toLowerCase(),
    pay_to: invoice.address.toLowerCase(),
    amount_units: '1250000',
    mode: 'gas_wallet',
    status: 'settled',
    tx_hash: settled.transaction,
    gas_address: gasAddress().toLowerCase(),
    error_reason: null,
  });
  t.true(BigInt(row!.spend_units!) > 0n);
  t.truthy(row!.settled_at_iso);
  t.true(
    await settlements().known(payment.asset, payer.address.toUpperCase().replace('0X', '0x'), payment.authorization.nonce.toUpperCase().replace('0X', '0x')),
  );
  // Nothing is credited on the settlement's word: the invoice waits for the watchers.
  t.is((await h.reload(invoice.id)).status, 'pending');
});

test.serial(
  'one authorization settled at once twice here and once on a second gateway: one transaction, the others invalid_exact_evm_nonce_already_used',
  async (t) => {
    const invoice = await h.invoice('2');
    const payer = await h.payer(2n * USDC);
    const payment = await verifiedPayment(h, invoice, payer);
    const onOther = { ...payment, asset: await usdcAsset(h, other) };
    const before = await h.sentCount(gasAddress());

    const answers = await Promise.all([settlements().settle(payment), settlements(other).settle(onOther), settlements().settle(payment)]);

    const won = answers.filter((a) => a.success);
    t.is(won.length, 1);
    for (const lost of answers.filter((a) => !a.success)) {
      t.like(lost, { errorReason: X402_REASONS.nonceUsed, transaction: '', network: 'eip155:31337' });
    }
    t.is(await h.sentCount(gasAddress()), before + 1);
    t.is(await pendingNonce(), before + 1);
    t.is(await transfers(payer.address, invoice.address), 1);
    t.is(await h.balanceOf(invoice.address), 2n * USDC);
    const rows = await rowsOf(invoice.id);
    t.is(rows.length, 1);
    t.like(rows[0], { status: 'settled', tx_hash: won[0]!.transaction });
    // Asked again later, it is refused the same way, and sends nothing.
    t.like(await settlements(other).settle(onOther), { success: false, errorReason: X402_REASONS.nonceUsed });
    t.is(await pendingNonce(), before + 1);
  },
);

test.serial('the cap per settlement refuses before anything is sent: no transaction, no row, the authorization still settles elsewhere', async (t) => {
  const capped = withCaps({ maxPerSettlementUnits: '1000', maxPerDayUnits: GAS_CAPS.maxPerDayUnits });
  const invoice = await h.invoice('0.5');
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  const before = await pendingNonce();

  const refused = await capped.settlements.settle(payment);

  t.like(refused, { success: false, errorReason: X402_REASONS.settle, transaction: '', payer: payer.address });
  // The payer is told the kind of refusal, never the cap or the wallet's figures (they go to the log).
  t.is(refused.errorMessage, GAS_WALLET_REFUSAL_MESSAGES.settlement_cap);
  t.is(await pendingNonce(), before);
  t.is(await h.balanceOf(invoice.address), 0n);
  t.deepEqual(await rowsOf(invoice.id), []);
  t.false(await settlements().known(payment.asset, payer.address, payment.authorization.nonce));
  t.like(await capped.gasWallets.precheck(payment.asset, 1001n), { refused: 'settlement_cap' });
  t.is(await capped.gasWallets.precheck(payment.asset, 1000n), undefined);

  // Nothing of the authorization was used: the gateway with room settles it.
  t.like(await settlements().settle(payment), { success: true });
  t.is(await h.balanceOf(invoice.address), 500_000n);
});

test.serial('the cap per 24 hours: a settlement passes while the sum stays under it, the next that would pass it is refused before sending', async (t) => {
  const wallets = h.gw.kernel.cradle.x402GasWallets;
  const [view] = await wallets.views();
  const spent = BigInt(view!.spent_24h_units);
  const [latest] = await settlements().list({ status: 'settled', limit: 1 });
  const last = BigInt(latest!.spend_units!);
  // Room for one more settlement like the last (the base fee of anvil's near-empty blocks only falls), not for two.
  const perDay = spent + (last * 5n) / 4n;
  const daily = withCaps({ maxPerSettlementUnits: GAS_CAPS.maxPerSettlementUnits, maxPerDayUnits: perDay.toString() });
  const [first, second] = [await h.invoice('0.1'), await h.invoice('0.2')];
  const payer = await h.payer(USDC);
  const one = await verifiedPayment(h, first, payer);
  const two = await verifiedPayment(h, second, payer);

  t.like(await daily.settlements.settle(one), { success: true });
  const before = await pendingNonce();
  const refused = await daily.settlements.settle(two);

  t.like(refused, { success: false, errorReason: X402_REASONS.settle, transaction: '' });
  t.is(refused.errorMessage, GAS_WALLET_REFUSAL_MESSAGES.day_cap);
  t.false(refused.errorMessage!.includes(perDay.toString()));
  t.is(await pendingNonce(), before);
  t.is(await h.balanceOf(second.address), 0n);
  t.deepEqual(await rowsOf(second.id), []);
  const [after] = await daily.gasWallets.views();
  t.true(BigInt(after!.spent_24h_units) > spent);
  t.true(BigInt(after!.spent_24h_units) <= perDay);
  t.like(await daily.gasWallets.precheck(two.asset, last), { refused: 'day_cap' });
});

test.serial('settlements in a row, from two gateways at once: consecutive gas nonces, none skipped, none reused', async (t) => {
  const start = await pendingNonce();
  const payments = [];
  for (let i = 0; i < 6; i++) {
    const gw = i % 2 === 0 ? h.gw : other;
    payments.push({ gw, payment: await verifiedPayment(h, await h.invoice(`0.0${i + 1}`), await h.payer(USDC), { gw }) });
  }

  const answers = await Promise.all(payments.map(({ gw, payment }) => settlements(gw).settle(payment)));

  t.true(answers.every((a) => a.success));
  const nonces = await Promise.all(
    answers.map(async (a) => Number(BigInt((await h.chain.anvil.rpc<{ nonce: string }>('eth_getTransactionByHash', [a.transaction])).nonce))),
  );
  t.deepEqual(
    [...nonces].sort((a, b) => a - b),
    [0, 1, 2, 3, 4, 5].map((i) => start + i),
  );
  t.is(await h.sentCount(gasAddress()), start + 6);
});

/** A fresh invoice of `amount`, the requirement the gateway asks for it, and a payer's payment of it. */
async function paidThroughPayments(amount: string) {
  const invoice = await h.invoice(amount);
  const required = await h.gw.kernel.cradle.x402Payments.requirementsFor(invoice, resourceOf(`${h.gw.url}/checkout/x`, `Invoice ${invoice.id}`));
  const requirements = required!.accepts[0]!;
  const payer = await h.payer(USDC);
  const payload = await signPayment(payer, requirements);
  return { invoice, requirements, payer, payload, target: { projectId: h.project.projectId, invoiceId: invoice.id, source: 'invoice' as const } };
}

test.serial(
  'through x402Payments.settle (verify, then settle) on two gateways at once: one transaction, the other invalid_exact_evm_nonce_already_used',
  async (t) => {
    const { invoice, requirements, payer, payload, target } = await paidThroughPayments('0.8');
    const before = await pendingNonce();

    const answers = await Promise.all([
      h.gw.kernel.cradle.x402Payments.settle(payload, requirements, target),
      other.kernel.cradle.x402Payments.settle(payload, requirements, target),
    ]);

    t.is(answers.filter((a) => a.success).length, 1, JSON.stringify(answers));
    t.like(
      answers.find((a) => !a.success),
      { errorReason: X402_REASONS.nonceUsed, transaction: '' },
    );
    t.is(await pendingNonce(), before + 1);
    t.is(await transfers(payer.address, invoice.address), 1);
    t.is(await h.balanceOf(invoice.address), 800_000n);
  },
);

test.serial('through x402Payments.settle, over the cap per settlement: unexpected_settle_error, nothing sent', async (t) => {
  const capped = withCaps({ maxPerSettlementUnits: '1000', maxPerDayUnits: GAS_CAPS.maxPerDayUnits });
  const { invoice, requirements, payload, target } = await paidThroughPayments('0.9');
  const before = await pendingNonce();

  const refused = await capped.payments.settle(payload, requirements, target);

  t.like(refused, { success: false, errorReason: X402_REASONS.settle, transaction: '', network: 'eip155:31337' });
  t.is(refused.errorMessage, GAS_WALLET_REFUSAL_MESSAGES.settlement_cap);
  t.is(await pendingNonce(), before);
  t.deepEqual(await rowsOf(invoice.id), []);
  t.is(await h.balanceOf(invoice.address), 0n);
});

test.serial('the gas wallet settles only into pool addresses: an authorization to another address is refused, nothing sent', async (t) => {
  const invoice = await h.invoice('0.3');
  const payer = await h.payer(USDC);
  const stranger = Wallet.createRandom().address;
  const payment = await verifiedPayment(h, invoice, payer, { payment: { authorization: { to: stranger } } });
  const before = await pendingNonce();

  const refused = await settlements().settle(payment);

  t.like(refused, { success: false, errorReason: X402_REASONS.settle, transaction: '' });
  t.is(refused.errorMessage, GAS_WALLET_REFUSAL_MESSAGES.not_allowed);
  t.is(await pendingNonce(), before);
  t.is(await h.balanceOf(stranger), 0n);
  t.deepEqual(await rowsOf(invoice.id), []);
});

test.serial('an authorization a third party submitted first: the settlement is mined reverted and recorded failed', async (t) => {
  const invoice = await h.invoice('0.4');
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  await h.submitDirectly(payment.payload);

  const failed = await settlements().settle(payment);

  t.like(failed, { success: false, errorReason: X402_REASONS.transactionFailed, payer: payer.address });
  t.regex(failed.transaction, /^0x[0-9a-f]{64}$/);
  t.regex(failed.errorMessage!, /reverted/);
  t.like((await rowsOf(invoice.id))[0], { status: 'failed', tx_hash: failed.transaction, error_reason: X402_REASONS.transactionFailed });
  t.is(await transfers(payer.address, invoice.address), 1);
});

test.serial('not mined within receiptWaitSeconds: settlement_pending naming the transaction, the row pending; it lands once mined', async (t) => {
  const waiting = settlementsWith(h.gw, { receiptWaitSeconds: 1 });
  const invoice = await h.invoice('0.6');
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  await h.chain.anvil.pauseMining();
  let pending;
  try {
    pending = await waiting.settlements.settle(payment);
  } finally {
    await h.chain.anvil.resumeMining();
  }

  t.like(pending, { success: false, errorReason: X402_REASONS.pending, network: 'eip155:31337' });
  t.regex(pending.transaction, /^0x[0-9a-f]{64}$/);
  t.like((await rowsOf(invoice.id))[0], { status: 'pending', tx_hash: pending.transaction });
  await h.chain.anvil.mine(1);
  t.is(await h.balanceOf(invoice.address), 600_000n);
});

test.serial('the views: the wallet, its balance, what it spent in 24 hours (the rows summed) and its caps', async (t) => {
  const [view, ...more] = await h.gw.kernel.cradle.x402GasWallets.views();
  t.is(more.length, 0);
  const rows = await settlements().list({ limit: 1000 });
  const spent = rows.reduce((sum, r) => sum + BigInt(r.spend_units ?? '0'), 0n);
  t.deepEqual(view, {
    chain: 'eth',
    network: 'anvil',
    address: h.gasWallet.address,
    balance_units: (await h.chain.ethBalance(h.gasWallet.address)).toString(),
    spent_24h_units: spent.toString(),
    max_per_settlement_units: GAS_CAPS.maxPerSettlementUnits,
    max_per_day_units: GAS_CAPS.maxPerDayUnits,
  });
  t.is(h.gw.kernel.cradle.x402GasWallets.address('eth', 'anvil'), h.gasWallet.address);
  t.is(h.gw.kernel.cradle.x402GasWallets.address('eth', 'sepolia'), undefined);
});

test.serial(
  'the key file is checked at start: a gateway whose gas wallet key is unreadable or malformed does not start, the key never in the error',
  async (t) => {
    const caps = { maxPerSettlementUnits: GAS_CAPS.maxPerSettlementUnits, maxPerDayUnits: GAS_CAPS.maxPerDayUnits };
    const missing = join(h.gasKeyFile, '..', 'missing.key');
    await t.throwsAsync(h.second({ ...SMALL_POOLS, 'plugins.x402.gasWallets': { eth: { anvil: { privateKeyFile: missing, ...caps } } } }), {
      message: /x402 gas wallet key file .*missing\.key cannot be read \(ENOENT\)/,
    });
    const malformed = join(h.gasKeyFile, '..', 'malformed.key');
    const secret = `0x${'ab'.repeat(31)}zz`;
    await writeFile(malformed, secret, { mode: 0o600 });
    const error = await t.throwsAsync(h.second({ ...SMALL_POOLS, 'plugins.x402.gasWallets': { eth: { anvil: { privateKeyFile: malformed, ...caps } } } }), {
      message: /x402 gas wallet key file .*malformed\.key is not a private key/,
    });
    t.false(String(error?.message).includes(secret.slice(2, 20)));
  },
);

test.serial(
  'two authorizations for one invoice settled at once on two gateways, before the watchers record the first: one transaction, the other invalid_payment_requirements, nothing more sent; the invoice then asks for nothing',
  async (t) => {
    const invoice = await h.invoice('0.7');
    const resource = resourceOf(`${h.gw.url}/checkout/x`, `Invoice ${invoice.id}`);
    const requirements = (await h.gw.kernel.cradle.x402Payments.requirementsFor(invoice, resource))!.accepts[0]!;
    const target = { projectId: h.project.projectId, invoiceId: invoice.id, source: 'invoice' as const };
    const [first, second] = [await h.payer(USDC), await h.payer(USDC)];
    const verified = await Promise.all(
      [
        { gw: h.gw, payer: first },
        { gw: other, payer: second },
      ].map(async ({ gw, payer }) => ({
        gw,
        ...(await gw.kernel.cradle.x402Payments.verification(await signPayment(payer, requirements), requirements, target)),
      })),
    );
    t.true(verified.every((v) => v.response.isValid));
    const before = await pendingNonce();
    // Pool addresses are handed out again: what this invoice receives is what its address gains.
    const held = await h.balanceOf(invoice.address);

    const answers = await Promise.all(verified.map(({ gw, payment }) => gw.kernel.cradle.x402Payments.settleVerified(payment!)));

    t.is(answers.filter((a) => a.success).length, 1, JSON.stringify(answers));
    t.like(
      answers.find((a) => !a.success),
      { errorReason: X402_REASONS.requirements, transaction: '' },
    );
    t.is(await pendingNonce(), before + 1);
    t.is(await h.balanceOf(invoice.address), held + 700_000n);
    t.is((await rowsOf(invoice.id)).length, 1);
    // The settlement on its way counts as paid: a 402 asks for nothing more, whether or not the watchers recorded it yet.
    t.is(await h.gw.kernel.cradle.x402Payments.requirementsFor(await h.reload(invoice.id), resource), undefined);
  },
);

test.serial(
  'a settle retried after settlement_pending waits for the same transaction (success once mined, nothing sent again); another payload with that nonce is refused',
  async (t) => {
    const waiting = settlementsWith(h.gw, { receiptWaitSeconds: 1 });
    const { invoice, requirements, payer, payload, target } = await paidThroughPayments('0.65');
    const before = await pendingNonce();
    await h.chain.anvil.pauseMining();
    let pending;
    try {
      pending = await waiting.payments.settle(payload, requirements, target);
      t.like(pending, { success: false, errorReason: X402_REASONS.pending });
      // Same nonce, same invoice, another signature (another validBefore): not the settlement on its way, and the invoice asks nothing more.
      const other = await signPayment(payer, requirements, {
        authorization: { nonce: payload.payload.authorization.nonce, validBefore: String(Number(payload.payload.authorization.validBefore) + 1) },
      });
      t.like(await waiting.payments.settle(other, requirements, target), { success: false, transaction: '' });
      // Same nonce for another invoice (another recipient and value): a replay.
      const elsewhere = await paidThroughPayments('0.66');
      const replay = await signPayment(payer, elsewhere.requirements, { authorization: { nonce: payload.payload.authorization.nonce } });
      t.like(await waiting.payments.settle(replay, elsewhere.requirements, elsewhere.target), {
        success: false,
        errorReason: X402_REASONS.nonceUsed,
        transaction: '',
      });
      t.is(await pendingNonce(), before + 1);
    } finally {
      await h.chain.anvil.resumeMining();
    }
    await h.chain.anvil.mine(1);

    const retried = await h.gw.kernel.cradle.x402Payments.settle(payload, requirements, target);

    t.like(retried, { success: true, transaction: pending.transaction, payer: payer.address });
    t.is(await pendingNonce(), before + 1);
    t.is(await transfers(payer.address, invoice.address), 1);
    t.like((await rowsOf(invoice.id))[0], { status: 'settled', tx_hash: pending.transaction });
    // Finished, the same payload again is refused (the invoice asks for nothing more), nothing sent.
    t.like(await h.gw.kernel.cradle.x402Payments.settle(payload, requirements, target), { success: false, transaction: '' });
    t.is(await pendingNonce(), before + 1);
  },
);

/** `asset` whose node answers a send with `failure` (after taking the transaction when `taken`). */
function sendFailing(asset: X402Asset, failure: Error, taken: boolean): X402Asset {
  const transfers = new Proxy(asset.transfers, {
    get: (target, name) => {
      if (name === 'send') {
        return async (signed: string) => {
          if (taken) await target.send(signed);
          throw failure;
        };
      }
      const value = Reflect.get(target, name) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { ...asset, transfers };
}

test.serial('a send without an answer (a reset after the node took it) keeps the row and waits for the receipt: settled once mined', async (t) => {
  const invoice = await h.invoice('0.45');
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  const before = await pendingNonce();
  const held = await h.balanceOf(invoice.address);

  const settled = await settlements().settle({ ...payment, asset: sendFailing(payment.asset, new Error('socket hang up'), true) });

  t.like(settled, { success: true, payer: payer.address });
  t.is(await pendingNonce(), before + 1);
  t.is(await h.balanceOf(invoice.address), held + 450_000n);
  t.like((await rowsOf(invoice.id))[0], { status: 'settled', tx_hash: settled.transaction });
});

test.serial("the node's refusal of the send rolls back: no row, the nonce free, a fixed message without the node's words", async (t) => {
  const invoice = await h.invoice('0.46');
  const payer = await h.payer(USDC);
  const payment = await verifiedPayment(h, invoice, payer);
  const before = await pendingNonce();
  const refusal = treasuryChainErrors.treasury_broadcast_rejected({ message: 'The provider refused it: provider-x says insufficient funds 123' });

  const refused = await settlements().settle({ ...payment, asset: sendFailing(payment.asset, refusal, false) });

  t.like(refused, { success: false, errorReason: X402_REASONS.transactionFailed, transaction: '' });
  t.false(refused.errorMessage!.includes('provider-x'));
  t.deepEqual(await rowsOf(invoice.id), []);
  t.is(await pendingNonce(), before);
  t.like(await settlements().settle(payment), { success: true });
});

test.serial('a settlement the node dropped is broadcast again at the next settlement and mined; the settlements after it proceed', async (t) => {
  const waiting = settlementsWith(h.gw, { receiptWaitSeconds: 1 });
  const dropped = await h.invoice('0.31');
  const payer = await h.payer(USDC);
  const first = await verifiedPayment(h, dropped, payer);
  const before = await pendingNonce();
  const sent = await h.balanceOf(payer.address);
  await h.chain.anvil.pauseMining();
  let pending;
  try {
    pending = await waiting.settlements.settle(first);
    t.like(pending, { success: false, errorReason: X402_REASONS.pending });
    await h.chain.anvil.rpc('anvil_dropTransaction', [pending.transaction]);
    t.is(await h.chain.anvil.rpc('eth_getTransactionByHash', [pending.transaction]), null);
    t.is(await pendingNonce(), before);
  } finally {
    await h.chain.anvil.resumeMining();
  }

  const later = await Promise.all([h.invoice('0.32'), h.invoice('0.33')]);
  const answers = [];
  for (const invoice of later) answers.push(await settlements().settle(await verifiedPayment(h, invoice, payer)));

  t.true(
    answers.every((a) => a.success),
    JSON.stringify(answers),
  );
  // All three paid, the dropped one too.
  t.is(await h.balanceOf(payer.address), sent - 960_000n);
  t.like((await rowsOf(dropped.id))[0], { tx_hash: pending.transaction });
  const mined = await h.chain.anvil.rpc<{ nonce: string; blockNumber: string | null }>('eth_getTransactionByHash', [pending.transaction]);
  t.truthy(mined.blockNumber);
  t.is(Number(BigInt(mined.nonce)), before);
  t.is(await pendingNonce(), before + 3);
});
