/**
 * EVM payouts end to end (issue 37) on anvil: the REAL EVM account treasury builds a USDC payout
 * (the EIP-3009 test token, 6 decimals) to three recipients from the operator's funding account;
 * the signer's own code (`checkAccountPlan`, `signAccountPlan`) derives the funding key from the
 * test mnemonic at its path, shows every recipient, and signs; the treasury verifies each signed
 * step and broadcasts; the balances move on chain. Then the refusals a payout build makes.
 */
import test from 'ava';
import { AppError, type AccountPayoutRequest, type OperatorAccount } from '@gw/chain-api';
import { getAddress, HDNodeWallet, Mnemonic, Transaction } from 'ethers';
import { EvmTreasuryChain, TREASURY_TEST_MNEMONIC } from '@gw/testing';
import { parseAccountSecret } from '../src/account-keys.js';
import { formatAccountReview } from '../src/account-review.js';
import { checkAccountPlan, signAccountPlan } from '../src/account-sign.js';
import { planFileOf } from '../src/account-testing.js';

const FUNDING_PATH = "m/44'/60'/2'/0/0";
const USDC = 10n ** 6n;
let chain: EvmTreasuryChain;
let funding: OperatorAccount;

test.before(async () => {
  chain = await EvmTreasuryChain.start();
  const wallet = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(TREASURY_TEST_MNEMONIC).computeSeed()).derivePath(FUNDING_PATH);
  funding = { role: 'funding', address: wallet.address, path: FUNDING_PATH };
  await chain.anvil.sendEth(chain.funder, funding.address, 10n ** 18n);
  await chain.anvil.sendToken(chain.contracts.eip3009, chain.funder, funding.address, 1_000n * USDC);
});
test.after.always(async () => {
  await chain?.stop();
});

const payout = (coin: string, recipients: { address: string; units: bigint }[], extra: Partial<AccountPayoutRequest> = {}): AccountPayoutRequest => ({
  coin,
  from: { kind: 'operator', account: funding },
  recipients: recipients.map((r, i) => ({ reference: `po-${i}`, ...r })),
  operatorAccounts: { funding, gas: chain.gasAccount },
  ...extra,
});

const code = (error: unknown): string | undefined => (error instanceof AppError ? error.code : undefined);

test.serial('EVM USDC payout to three recipients from the funding account: signed by the signer, broadcast, paid on chain', async (t) => {
  const recipients = [
    { address: EvmTreasuryChain.freshAddress(), units: 125n * USDC },
    { address: EvmTreasuryChain.freshAddress(), units: 2n * USDC + 340_000n },
    { address: EvmTreasuryChain.freshAddress(), units: 1n },
  ];
  const plan = await chain.treasury.buildPayout!(payout('usdc', recipients));
  t.like(plan, { method: 'payout', coin: 'usdc', rounds: 1, movedUnits: 127n * USDC + 340_001n, operatorPaysUnits: plan.feeUnits });
  t.is(plan.destination, recipients.map((r) => r.address).join(','));
  t.deepEqual(
    JSON.parse(String(plan.context['recipients'])),
    recipients.map((r, i) => ({ reference: `po-${i}`, address: r.address, units: r.units.toString() })),
  );
  const nonce = BigInt(await chain.anvil.rpc<string>('eth_getTransactionCount', [funding.address, 'pending']));
  plan.steps.forEach((step, i) => {
    t.like(step, { id: `payout-${i}`, round: 1, stage: 0, kind: 'transaction', nonce: nonce + BigInt(i), to: recipients[i]!.address });
    t.deepEqual(step.moves, { usdc: recipients[i]!.units });
    t.like(step.signer, { kind: 'operator', account: { role: 'funding', address: funding.address, path: FUNDING_PATH } });
    const tx = Transaction.from(step.unsigned.data);
    t.is(tx.to, getAddress(chain.contracts.eip3009));
    t.is(tx.value, 0n);
  });

  const file = planFileOf(plan, 'eth', chain.network.id);
  const secret = await parseAccountSecret(TREASURY_TEST_MNEMONIC, '');
  // The token table check stays: an unlisted token is refused without --allow-unlisted-token.
  t.regex(t.throws(() => checkAccountPlan(JSON.parse(JSON.stringify(file)), secret))?.message ?? '', /unlisted token contract/);
  const checked = checkAccountPlan(JSON.parse(JSON.stringify(file)), secret, { allowUnlistedTokens: [chain.contracts.eip3009] });
  const review = formatAccountReview(checked);
  t.true(review.includes('Payout to 3 recipients:'));
  for (const [i, r] of recipients.entries()) t.true(review.includes(`  payout-${i}: ${r.units} usdc (base units) to ${r.address} (EXTERNAL)`), review);
  t.true(review.includes(`operator funding account, key ${FUNDING_PATH}`));

  const signed = signAccountPlan(checked);
  const verified = plan.steps.map((step, i) => chain.treasury.verifySigned(step, signed.signed[i]!.signed));
  t.deepEqual(
    (await chain.broadcast(plan.steps, verified)).map((r) => r.reverted),
    [false, false, false],
  );
  for (const r of recipients) t.is(await chain.balanceOf(chain.contracts.eip3009, r.address), r.units);
  t.is(await chain.balanceOf(chain.contracts.eip3009, funding.address), 1_000n * USDC - plan.movedUnits);
});

test.serial('EVM native payout from a pool address: signed with the deposit key, amounts arrive exactly', async (t) => {
  const source = chain.source(3);
  await chain.anvil.sendEth(chain.funder, source.address, 10n ** 17n);
  const recipients = [
    { address: EvmTreasuryChain.freshAddress(), units: 10n ** 16n },
    { address: EvmTreasuryChain.freshAddress(), units: 3n * 10n ** 15n },
  ];
  const plan = await chain.treasury.buildPayout!(payout('eth', recipients, { from: { kind: 'deposit', source } }));
  t.true(plan.steps.every((s) => s.signer.kind === 'deposit' && s.signer.path === "m/44'/60'/0'/0/3"));
  t.is(plan.operatorPaysUnits, 0n);
  const secret = await parseAccountSecret(TREASURY_TEST_MNEMONIC, '');
  const signed = signAccountPlan(checkAccountPlan(JSON.parse(JSON.stringify(planFileOf(plan, 'eth', chain.network.id))), secret));
  const verified = plan.steps.map((step, i) => chain.treasury.verifySigned(step, signed.signed[i]!.signed));
  await chain.broadcast(plan.steps, verified);
  for (const r of recipients) t.is(await chain.ethBalance(r.address), r.units);
});

test.serial('EVM payout refusals: short of the token or of the fees, an address of no EVM chain, no funding account, a zero amount', async (t) => {
  const to = EvmTreasuryChain.freshAddress();
  const short = await t.throwsAsync(chain.treasury.buildPayout!(payout('usdc', [{ address: to, units: 10n ** 12n }])));
  t.is(code(short), 'treasury_insufficient_value');
  t.like((short as AppError).details, { coin: 'usdc', needed_units: (10n ** 12n).toString() });

  // A pool address with tokens but no ETH for the fees.
  const source = chain.source(5);
  await chain.anvil.sendToken(chain.contracts.eip3009, chain.funder, source.address, 5n * USDC);
  const noGas = await t.throwsAsync(chain.treasury.buildPayout!(payout('usdc', [{ address: to, units: USDC }], { from: { kind: 'deposit', source } })));
  t.is(code(noGas), 'treasury_insufficient_value');
  t.like((noGas as AppError).details, { coin: 'eth', held_units: '0' });

  t.is(
    code(await t.throwsAsync(chain.treasury.buildPayout!(payout('usdc', [{ address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', units: 1n }])))),
    'treasury_wrong_network',
  );
  t.is(
    code(
      await t.throwsAsync(
        chain.treasury.buildPayout!({ ...payout('usdc', [{ address: to, units: 1n }]), from: { kind: 'operator' } as never, operatorAccounts: {} }),
      ),
    ),
    'treasury_operator_account_missing',
  );
  t.is(code(await t.throwsAsync(chain.treasury.buildPayout!(payout('usdc', [{ address: to, units: 0n }])))), 'validation_error');
  t.is(code(await t.throwsAsync(chain.treasury.buildPayout!(payout('usdc', [])))), 'validation_error');
});
