/**
 * The Solana treasury against the litesvm ledger (chains/sol/test/litesvm-rpc.ts): holdings of the
 * merchant address, SOL and USDC payouts built as unsigned messages, signed here with the
 * merchant's key pair (kit's `signBytes`, as any ed25519 wallet signs), verified, broadcast and
 * landed; refusals of tampered and foreign signatures; the durable nonce lifetime. The offline
 * signer's own signing of these plans from a mnemonic: packages/signer/test/payout-e2e-sol.test.ts.
 */
import test from 'ava';
import { address, generateKeyPairSigner, getTransactionDecoder, signBytes, type KeyPairSigner } from '@solana/kit';
import { getAdvanceNonceAccountInstruction } from '@solana-program/system';
import { AppError, ProviderPool, type AccountPayoutRequest, type AccountPlanBuild, type AccountStep, type AccountTreasury } from '@gw/chain-api';
import { configuredAdapter } from '@gw/chain-api/testing';
import { LiteSvmLedger } from '../../test/litesvm-rpc.js';
import { ata, createNonceAccount, freshAddress, fundedSigner, installMint, LAMPORTS_PER_SOL, mintTo, transaction } from '../../test/payments.js';
import { solChain } from '../index.js';
import { decodeStepData } from './step-data.js';

const USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const adapter = configuredAdapter(solChain, { testNetworks: { sol: 'localnet' } });
const network = adapter.definition.networks.testnets.find((n) => n.id === 'localnet')!;

interface Fixture {
  ledger: LiteSvmLedger;
  treasury: AccountTreasury;
  merchant: KeyPairSigner;
}

async function fixture(usdc = 500_000_000n): Promise<Fixture> {
  const ledger = await LiteSvmLedger.start();
  const providers = new ProviderPool({ chain: 'sol', network: network.id, endpoints: [{ name: 'litesvm', url: ledger.url }], timeoutMs: 10_000 });
  const merchant = await fundedSigner(ledger, 5n * LAMPORTS_PER_SOL);
  const mintAuthority = await fundedSigner(ledger);
  installMint(ledger, USDC, mintAuthority.address, 6);
  if (usdc > 0n) await mintTo(ledger, mintAuthority, USDC, merchant.address, usdc);
  ledger.finalize();
  return { ledger, treasury: adapter.createAccountTreasury!({ network, providers }), merchant };
}

const key = (merchant: KeyPairSigner) => ({ chain: 'sol', network: 'testnet' as const, input: merchant.address, canonical: merchant.address });
const payout = (merchant: KeyPairSigner, coin: string, recipients: { address: string; units: bigint }[], extra: Partial<AccountPayoutRequest> = {}) =>
  ({
    coin,
    from: { kind: 'deposit', source: { address: merchant.address, key: key(merchant), index: 0 } },
    recipients: recipients.map((r, i) => ({ reference: `po-${i}`, ...r })),
    operatorAccounts: {},
    ...extra,
  }) as AccountPayoutRequest;

/** The wire transaction (base64) of a step's message signed by `signer`: what the offline signer returns. */
async function signStep(step: AccountStep, signer: KeyPairSigner, tamper?: (bytes: Uint8Array) => void): Promise<string> {
  const bytes = new Uint8Array(decodeStepData(step).bytes);
  const signature = new Uint8Array(await signBytes(signer.keyPair.privateKey, bytes));
  tamper?.(bytes);
  return Buffer.concat([Buffer.from([1]), signature, bytes]).toString('base64');
}

async function landAll(treasury: AccountTreasury, plan: AccountPlanBuild, signer: KeyPairSigner): Promise<string[]> {
  await treasury.checkFresh(plan.steps);
  const txids: string[] = [];
  for (const step of plan.steps) {
    const verified = treasury.verifySigned(step, await signStep(step, signer));
    if (verified.kind !== 'transaction') throw new Error('not a transaction');
    txids.push(await treasury.broadcast(verified.tx));
  }
  return txids;
}

/** Lamports at `account` (0 where there is none). */
const balance = (ledger: LiteSvmLedger, account: string): bigint => BigInt(ledger.svm.getBalance(address(account)) ?? 0n);

const code = (error: unknown): string | undefined => (error instanceof AppError ? error.code : undefined);

test('holdings: SOL and every USDC token account of the merchant address; nothing to sweep', async (t) => {
  const { ledger, treasury, merchant } = await fixture(123_456_789n);
  t.teardown(() => ledger.close());
  const stranger = await freshAddress();
  const held = await treasury.holdings([merchant.address, stranger]);
  t.deepEqual(held.get(merchant.address)!.balances, { sol: 5n * LAMPORTS_PER_SOL, usdc_sol: 123_456_789n });
  t.like(
    held.get(merchant.address)!.tokens.find((x) => x.coin === 'usdc_sol'),
    { dust: false, gasLackingUnits: 0n, moveCostUnits: 5000n },
  );
  t.deepEqual(held.get(stranger)!.balances, { sol: 0n, usdc_sol: 0n });
  t.deepEqual(treasury.methods('sol'), []);
  t.deepEqual(treasury.methods('usdc_sol'), []);
  const refused = await t.throwsAsync(treasury.build({ coin: 'sol', sources: [], destination: stranger, operatorAccounts: {} }));
  t.is(code(refused), 'treasury_method_unavailable');
  t.deepEqual(await treasury.quote({ coin: 'sol', sources: [], destination: stranger, operatorAccounts: {} }), []);
});

test('a SOL payout to two recipients: built, signed, verified, broadcast; exact amounts arrive and the fees are what the plan said', async (t) => {
  const { ledger, treasury, merchant } = await fixture();
  t.teardown(() => ledger.close());
  const recipients = [
    { address: await freshAddress(), units: 1_250_000_000n },
    { address: await freshAddress(), units: 3_000_000n },
  ];
  const plan = await treasury.buildPayout!(payout(merchant, 'sol', recipients));
  t.like(plan, { method: 'payout', coin: 'sol', rounds: 1, movedUnits: 1_253_000_000n, feeUnits: 10_000n, operatorPaysUnits: 0n });
  t.is(plan.destination, recipients.map((r) => r.address).join(','));
  t.is(plan.context['lifetime'], 'blockhash');
  plan.steps.forEach((step, i) => {
    t.like(step, { id: `payout-${i}`, stage: 0, kind: 'transaction', to: recipients[i]!.address, feeUnits: 5000n, nonce: null });
    t.deepEqual(step.moves, { sol: recipients[i]!.units });
    t.is(step.unsigned.format, 'sol-tx');
    t.like(step.signer, { kind: 'deposit', address: merchant.address, path: "m/44'/501'/0'/0'" });
  });
  const before = balance(ledger, merchant.address);
  const txids = await landAll(treasury, plan, merchant);
  for (const r of recipients) t.is(balance(ledger, r.address), r.units);
  t.is(balance(ledger, merchant.address), before - plan.movedUnits - plan.feeUnits);
  const state = await treasury.transaction(txids[0]!);
  t.like(state, { txid: txids[0], confirmations: 0 });
  t.is(state!.failed, undefined);
  ledger.finalize();
  t.like(await treasury.transaction(txids[1]!), { confirmations: 1 });
  // Broadcasting again is idempotent; a plan resumed with its txids is fresh.
  const again = treasury.verifySigned(plan.steps[0]!, await signStep(plan.steps[0]!, merchant));
  t.is(await treasury.broadcast((again as Extract<typeof again, { kind: 'transaction' }>).tx), txids[0]!);
  await t.notThrowsAsync(treasury.checkFresh(plan.steps, new Map(plan.steps.map((s, i) => [s.id, txids[i]!]))));
});

test('a USDC payout to a recipient without a token account: the step creates it (rent from the merchant) and the USDC arrives', async (t) => {
  const { ledger, treasury, merchant } = await fixture(500_000_000n);
  t.teardown(() => ledger.close());
  const recipient = await freshAddress();
  const plan = await treasury.buildPayout!(payout(merchant, 'usdc_sol', [{ address: recipient, units: 12_340_000n }]));
  const rent = ledger.svm.minimumBalanceForRentExemption(165n);
  t.like(plan.steps[0], { to: recipient, feeUnits: 5000n + rent });
  t.deepEqual(plan.steps[0]!.moves, { usdc_sol: 12_340_000n });
  t.like(plan.context, { mint: USDC, decimals: 6 });
  t.regex(plan.steps[0]!.description, /creating its token account/);
  const solBefore = balance(ledger, merchant.address);
  await landAll(treasury, plan, merchant);
  const held = await treasury.holdings([recipient, merchant.address]);
  t.is(held.get(recipient)!.balances['usdc_sol'], 12_340_000n);
  t.is(held.get(merchant.address)!.balances['usdc_sol'], 500_000_000n - 12_340_000n);
  t.is(balance(ledger, merchant.address), solBefore - 5000n - rent);
  t.truthy(ledger.svm.getAccount(await ata(recipient, USDC)).exists);

  // Now the account exists: a second payout only transfers.
  const second = await treasury.buildPayout!(payout(merchant, 'usdc_sol', [{ address: recipient, units: 1n }]));
  t.is(second.steps[0]!.feeUnits, 5000n);
  t.regex(second.steps[0]!.description, /its token account/);
});

test('signatures: a tampered message and another key are refused; unreadable text too', async (t) => {
  const { ledger, treasury, merchant } = await fixture();
  t.teardown(() => ledger.close());
  const plan = await treasury.buildPayout!(payout(merchant, 'sol', [{ address: await freshAddress(), units: 1_000_000n }]));
  const step = plan.steps[0]!;
  // One byte of the amount changed after signing (the signature is the merchant's, over the original).
  const tampered = await signStep(step, merchant, (bytes) => {
    bytes[bytes.length - 8] = bytes[bytes.length - 8]! ^ 1;
  });
  t.is(code(t.throws(() => treasury.verifySigned(step, tampered))), 'treasury_signed_mismatch');
  const other = await generateKeyPairSigner();
  t.is(code(t.throws(() => treasury.verifySigned(step, signStepSync(step, other)))), 'treasury_signed_incomplete');
  const byOther = await signStep(step, other);
  t.is(code(t.throws(() => treasury.verifySigned(step, byOther))), 'treasury_signed_incomplete');
  t.is(code(t.throws(() => treasury.verifySigned(step, 'not a transaction'))), 'treasury_signed_unreadable');
  // The real signature still passes, and its wire form is what the ledger decodes.
  const good = treasury.verifySigned(step, await signStep(step, merchant));
  t.is(good.kind, 'transaction');
  t.notThrows(() => getTransactionDecoder().decode(Buffer.from((good as Extract<typeof good, { kind: 'transaction' }>).tx.hex, 'hex')));
});

/** A signature slot left empty (all zeros): an unsigned transaction. */
function signStepSync(step: AccountStep, _signer: KeyPairSigner): string {
  const bytes = decodeStepData(step).bytes;
  return Buffer.concat([Buffer.from([1]), Buffer.alloc(64), bytes]).toString('base64');
}

test('payout refusals: short of SOL or USDC, an address that is no Solana address, a zero amount, another key as source', async (t) => {
  const { ledger, treasury, merchant } = await fixture(1_000_000n);
  t.teardown(() => ledger.close());
  const to = await freshAddress();
  const short = await t.throwsAsync(treasury.buildPayout!(payout(merchant, 'sol', [{ address: to, units: 5n * LAMPORTS_PER_SOL }])));
  t.is(code(short), 'treasury_insufficient_value');
  t.like((short as AppError).details, { coin: 'sol', held_units: (5n * LAMPORTS_PER_SOL).toString() });
  const shortUsdc = await t.throwsAsync(treasury.buildPayout!(payout(merchant, 'usdc_sol', [{ address: to, units: 2_000_000n }])));
  t.is(code(shortUsdc), 'treasury_insufficient_value');
  t.like((shortUsdc as AppError).details, { coin: 'usdc_sol', needed_units: '2000000', held_units: '1000000' });
  t.is(
    code(await t.throwsAsync(treasury.buildPayout!(payout(merchant, 'sol', [{ address: '0x52908400098527886E0F7030069857D2E4169EE7', units: 1n }])))),
    'treasury_wrong_network',
  );
  t.is(code(await t.throwsAsync(treasury.buildPayout!(payout(merchant, 'sol', [{ address: to, units: 0n }])))), 'validation_error');
  const wrongSource = payout(merchant, 'sol', [{ address: to, units: 1n }], {
    from: { kind: 'deposit', source: { address: to, key: key(merchant), index: 0 } },
  });
  t.is(code(await t.throwsAsync(treasury.buildPayout!(wrongSource))), 'validation_error');
});

test('a durable nonce payout: signable after many blocks; once the nonce advanced, checkFresh refuses the plan', async (t) => {
  const { ledger, treasury, merchant } = await fixture();
  t.teardown(() => ledger.close());
  const nonce = await createNonceAccount(ledger, merchant, merchant.address);
  const operatorAccounts = { nonce: { role: 'nonce' as const, address: nonce, path: "m/44'/501'/0'/0'" } };
  const recipient = await freshAddress();
  const plan = await treasury.buildPayout!(payout(merchant, 'sol', [{ address: recipient, units: 7_000_000n }], { operatorAccounts }));
  t.like(plan.context, { lifetime: 'nonce', nonce_account: nonce });
  const { data, message } = decodeStepData(plan.steps[0]!);
  t.is(data.lifetime, 'nonce');
  t.is('lifetimeToken' in message ? message.lifetimeToken : undefined, plan.context['nonce']);

  // Two hundred blocks later (past any recent blockhash) the nonce plan is still fresh and lands.
  const payer = await fundedSigner(ledger);
  for (let i = 0; i < 200; i++) ledger.svm.expireBlockhash();
  ledger.send(await transaction(ledger, payer, []));
  await landAll(treasury, plan, merchant);
  t.is(balance(ledger, recipient), 7_000_000n);

  // A second plan whose nonce is used by another transaction first.
  const next = await treasury.buildPayout!(payout(merchant, 'sol', [{ address: recipient, units: 1_000_000n }], { operatorAccounts }));
  await t.notThrowsAsync(treasury.checkFresh(next.steps));
  ledger.send(await transaction(ledger, merchant, [getAdvanceNonceAccountInstruction({ nonceAccount: address(nonce), nonceAuthority: merchant })]));
  t.is(code(await t.throwsAsync(treasury.checkFresh(next.steps))), 'treasury_nonce_stale');

  // Several recipients cannot share one nonce.
  const many = payout(
    merchant,
    'sol',
    [
      { address: recipient, units: 1n },
      { address: await freshAddress(), units: 1n },
    ],
    { operatorAccounts },
  );
  t.is(code(await t.throwsAsync(treasury.buildPayout!(many))), 'treasury_method_unavailable');
});

test('a blockhash plan is refused by checkFresh once its last valid block height is near', async (t) => {
  const { ledger, treasury, merchant } = await fixture();
  t.teardown(() => ledger.close());
  const plan = await treasury.buildPayout!(payout(merchant, 'sol', [{ address: await freshAddress(), units: 1_000_000n }]));
  await t.notThrowsAsync(treasury.checkFresh(plan.steps));
  const payer = await fundedSigner(ledger);
  for (let i = 0; i < 145; i++) ledger.send(await transaction(ledger, payer, []));
  t.is(code(await t.throwsAsync(treasury.checkFresh(plan.steps))), 'treasury_nonce_stale');
});
