/**
 * Solana payouts end to end (issue 43) on the litesvm ledger: the REAL Solana treasury
 * (`@gw/chain-sol`) builds SOL and USDC payouts from the merchant address; the signer's own code
 * (`checkAccountPlan`, `signAccountPlan`) derives the merchant key from the test mnemonic at
 * m/44'/501'/0'/0' (SLIP-10, as Phantom, Solflare and the Solana CLI), shows every recipient, and
 * signs; the treasury verifies each signed step and broadcasts; the balances move on chain. Then the
 * refusals: another mnemonic, a summary that lies, an instruction a payout does not make, a tampered
 * or foreign signature.
 */
import test from 'ava';
import { address } from '@solana/addresses';
import { deriveEd25519Path, keyPairFromSeed } from '@ton/crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { AppError, ProviderPool, type AccountPayoutRequest, type AccountPlanBuild, type AccountTreasury } from '@gw/chain-api';
import { configuredAdapter } from '@gw/chain-api/testing';
import { solChain } from '@gw/chain-sol';
import { ata, createNonceAccount, transaction, freshAddress, fundedSigner, installMint, LAMPORTS_PER_SOL, LiteSvmLedger, mintTo } from '@gw/chain-sol/testing';
import { parseAccountSecret, solKeyAt } from '../src/account-keys.js';
import { formatAccountReview } from '../src/account-review.js';
import { checkAccountPlan, signAccountPlan } from '../src/account-sign.js';
import { planFileOf } from '../src/account-testing.js';
import { associatedTokenAccount, solAddressOf } from '../src/sol-step.js';
import { MNEMONIC, OTHER_MNEMONIC } from '../src/testing.js';

const USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const PATH = "m/44'/501'/0'/0'";
/**
 * The Solana address of the BIP 39 test mnemonic ("abandon" × 11, "about") at m/44'/501'/0'/0', as
 * Phantom and `solana-keygen` show it; the same value is asserted by several independent wallets'
 * test suites (e.g. Solana wallet libraries deriving with ed25519-hd-key + @solana/web3.js).
 */
const ABANDON_ADDRESS = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';
const adapter = configuredAdapter(solChain, { testNetworks: { sol: 'localnet' } });
const network = adapter.definition.networks.testnets.find((n) => n.id === 'localnet')!;

let ledger: LiteSvmLedger;
let treasury: AccountTreasury;
let merchant: string;
let mintAuthority: Awaited<ReturnType<typeof fundedSigner>>;

test.before(async () => {
  ledger = await LiteSvmLedger.start();
  const providers = new ProviderPool({ chain: 'sol', network: network.id, endpoints: [{ name: 'litesvm', url: ledger.url }], timeoutMs: 10_000 });
  treasury = adapter.createAccountTreasury!({ network, providers });
  merchant = ABANDON_ADDRESS;
  ledger.svm.airdrop(address(merchant), (10n * LAMPORTS_PER_SOL) as never);
  mintAuthority = await fundedSigner(ledger);
  installMint(ledger, USDC, mintAuthority.address, 6);
  await mintTo(ledger, mintAuthority, USDC, merchant, 1_000_000_000n);
});
test.after.always(async () => {
  await ledger?.close();
});

const payout = (coin: string, recipients: { address: string; units: bigint }[]): AccountPayoutRequest => ({
  coin,
  from: { kind: 'deposit', source: { address: merchant, key: { chain: 'sol', network: 'testnet', input: merchant, canonical: merchant }, index: 0 } },
  recipients: recipients.map((r, i) => ({ reference: `po-${i}`, ...r })),
  operatorAccounts: {},
});

/** An empty transaction of `payer`: a slot passes. */
const transactionOf = (payer: Awaited<ReturnType<typeof fundedSigner>>) => transaction(ledger, payer, []);

const code = (error: unknown): string | undefined => (error instanceof AppError ? error.code : undefined);
const fileOf = (plan: AccountPlanBuild) => JSON.parse(JSON.stringify(planFileOf(plan, 'sol', network.id))) as unknown;

test("SLIP-10 m/44'/501'/0'/0': the published address of the test mnemonic, and @ton/crypto's SLIP-10 agrees", async (t) => {
  const secret = await parseAccountSecret(MNEMONIC, '');
  const key = solKeyAt(secret, PATH, 'test');
  t.is(solAddressOf(key.publicKey), ABANDON_ADDRESS);
  const independent = keyPairFromSeed(await deriveEd25519Path(Buffer.from(mnemonicToSeedSync(MNEMONIC)), [44, 501, 0, 0]));
  t.is(solAddressOf(independent.publicKey), ABANDON_ADDRESS);
  t.not(solAddressOf(solKeyAt(secret, "m/44'/501'/1'/0'", 'test').publicKey), ABANDON_ADDRESS);
  t.throws(() => solKeyAt(secret, "m/44'/501'/0'/0/0", 'test'), { message: /not a Solana path/ });
  // The signer's associated token account is @solana-program/token's.
  t.is(associatedTokenAccount(merchant, USDC), await ata(merchant, USDC));
});

test.serial('a SOL payout to two recipients: the signer shows them, signs from the mnemonic; verified, broadcast, paid', async (t) => {
  const recipients = [
    { address: await freshAddress(), units: 1_500_000_000n },
    { address: await freshAddress(), units: 2_000_000n },
  ];
  const plan = await treasury.buildPayout!(payout('sol', recipients));
  const secret = await parseAccountSecret(MNEMONIC, '');
  const checked = checkAccountPlan(fileOf(plan), secret);
  const review = formatAccountReview(checked);
  t.true(review.includes('Payout to 2 recipients:'), review);
  t.true(review.includes(`payout-0: 1.500000000 SOL (1500000000 lamports) to ${recipients[0]!.address} (EXTERNAL)`), review);
  t.true(review.includes(`payout-1: 0.002000000 SOL (2000000 lamports) to ${recipients[1]!.address} (EXTERNAL)`), review);
  t.true(review.includes(`fee payer ${merchant} (the signer)`), review);
  t.true(review.includes(`deposit address, key ${PATH}`), review);
  t.regex(review, /lands only until block height \d+/);

  const signed = signAccountPlan(checked);
  await treasury.checkFresh(plan.steps);
  for (const [i, step] of plan.steps.entries()) {
    const verified = treasury.verifySigned(step, signed.signed[i]!.signed);
    await treasury.broadcast((verified as Extract<typeof verified, { kind: 'transaction' }>).tx);
  }
  for (const r of recipients) t.is(BigInt(ledger.svm.getBalance(address(r.address)) ?? 0n), r.units);
});

test.serial('a USDC payout to a recipient without a token account: the signer shows the mint, the account created and the amount; paid', async (t) => {
  const recipient = await freshAddress();
  const plan = await treasury.buildPayout!(payout('usdc_sol', [{ address: recipient, units: 25_000_000n }]));
  const secret = await parseAccountSecret(MNEMONIC, '');
  const checked = checkAccountPlan(fileOf(plan), secret);
  const review = formatAccountReview(checked);
  const destination = await ata(recipient, USDC);
  t.true(review.includes(`payout-0: 25000000 usdc_sol (base units) to ${recipient} (EXTERNAL)`), review);
  t.true(review.includes(`(token ${USDC})`), review);
  t.true(review.includes(`creates ${recipient}'s associated token account ${destination} for mint ${USDC}`), review);
  const signed = signAccountPlan(checked);
  const verified = treasury.verifySigned(plan.steps[0]!, signed.signed[0]!.signed);
  await treasury.broadcast((verified as Extract<typeof verified, { kind: 'transaction' }>).tx);
  t.is((await treasury.holdings([recipient])).get(recipient)!.balances['usdc_sol'], 25_000_000n);
});

test.serial('a durable nonce payout: the signer shows the nonce and its account, signs; it lands after the recent blockhashes expired', async (t) => {
  const nonce = await createNonceAccount(ledger, mintAuthority, merchant);
  const recipient = await freshAddress();
  const plan = await treasury.buildPayout!({
    ...payout('sol', [{ address: recipient, units: 4_000_000n }]),
    operatorAccounts: { nonce: { role: 'nonce', address: nonce, path: PATH } },
  });
  const secret = await parseAccountSecret(MNEMONIC, '');
  const checked = checkAccountPlan(fileOf(plan), secret);
  const review = formatAccountReview(checked);
  t.true(review.includes(`durable nonce ${String(plan.context['nonce'])} of the nonce account ${nonce} (authority: the signer)`), review);
  const signed = signAccountPlan(checked);
  // The signing takes longer than a blockhash lives: 200 slots pass.
  for (let i = 0; i < 200; i++) ledger.send(await transactionOf(mintAuthority));
  await treasury.checkFresh(plan.steps);
  const verified = treasury.verifySigned(plan.steps[0]!, signed.signed[0]!.signed);
  await treasury.broadcast((verified as Extract<typeof verified, { kind: 'transaction' }>).tx);
  t.is(BigInt(ledger.svm.getBalance(address(recipient)) ?? 0n), 4_000_000n);

  // A nonce step whose advance names another account than its data says is refused.
  const other = await createNonceAccount(ledger, mintAuthority, merchant);
  const lying = fileOf(plan) as { steps: { unsigned: { data: string } }[] };
  lying.steps[0]!.unsigned.data = JSON.stringify({ ...JSON.parse(lying.steps[0]!.unsigned.data), nonce_account: other });
  t.regex(t.throws(() => checkAccountPlan(lying, secret))?.message ?? '', /not the step's nonce account/);
});

test.serial('refusals: another mnemonic, a tampered signed transaction, a summary that lies, a step signed by another key', async (t) => {
  const recipient = await freshAddress();
  const plan = await treasury.buildPayout!(payout('sol', [{ address: recipient, units: 3_000_000n }]));
  // Another seed derives another address: nothing is signed.
  const other = await parseAccountSecret(OTHER_MNEMONIC, '');
  t.regex(t.throws(() => checkAccountPlan(fileOf(plan), other))?.message ?? '', /is .+, not the step's signer/);
  // A summary whose amount differs from its message.
  const lying = fileOf(plan) as { steps: { moves: Record<string, string> }[] };
  lying.steps[0]!.moves['sol'] = '3000001';
  const secret = await parseAccountSecret(MNEMONIC, '');
  t.regex(t.throws(() => checkAccountPlan(lying, secret))?.message ?? '', /summary says it moves 3000001 sol/);

  // A message whose System instruction is no transfer (index 9, `TransferWithSeed`'s neighbour): not something a payout does.
  const foreignIx = fileOf(plan) as { steps: { unsigned: { data: string } }[] };
  const data = JSON.parse(foreignIx.steps[0]!.unsigned.data) as { message: string };
  const bytes = Buffer.from(data.message, 'base64');
  bytes[bytes.length - 12] = 9;
  foreignIx.steps[0]!.unsigned.data = JSON.stringify({ ...data, message: bytes.toString('base64') });
  t.regex(t.throws(() => checkAccountPlan(foreignIx, secret))?.message ?? '', /the signer does not sign/);

  const signed = signAccountPlan(checkAccountPlan(fileOf(plan), secret)).signed[0]!.signed;
  const wire = Buffer.from(signed, 'base64');
  wire[wire.length - 1] = wire[wire.length - 1]! ^ 1; // the last byte of the amount
  t.is(code(t.throws(() => treasury.verifySigned(plan.steps[0]!, wire.toString('base64')))), 'treasury_signed_mismatch');
  // The same message signed by another key (another mnemonic's key at the path).
  const foreign = solKeyAt(other, PATH, 'test');
  const { sign } = await import('@ton/crypto');
  const message = Buffer.from(wire.subarray(65));
  message[message.length - 1] = message[message.length - 1]! ^ 1; // back to the plan's bytes
  const byOther = Buffer.concat([Buffer.from([1]), sign(message, foreign.secretKey), message]).toString('base64');
  t.is(code(t.throws(() => treasury.verifySigned(plan.steps[0]!, byOther))), 'treasury_signed_incomplete');
});
