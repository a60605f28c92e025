/**
 * End to end on EVM (issue 36): the REAL EVM account treasury (@gw/chain-evm) on anvil with the
 * Prague rules (EIP-7702; @gw/testing EvmTreasuryChain: Multicall3, an ERC-20 and an EIP-3009 token)
 * builds native, gas top-up, EIP-7702 sweeper and EIP-3009 plans; `accountPlanFile` (@gw/chain-api)
 * writes each round's file, the signer's own code (`checkAccountPlan`, `signAccountPlan`: what
 * `gateway-signer sign` runs) signs it from the test mnemonic (deposit addresses m/44'/60'/0'/0/i,
 * the gas account m/44'/60'/1'/0/0), the treasury verifies every signed step, builds round 2 from
 * round 1, and broadcasts; the balances move on anvil.
 */
import test from 'ava';
import { type AccountPlanBuild, type AccountStep, type AccountSweepRequest, type VerifiedStep } from '@gw/chain-api';
import { EvmAccountTreasury, TOKEN_SWEEPER_ABI, tokenSweeperInitCode } from '@gw/chain-evm';
import { Transaction } from 'ethers';
import { EvmTreasuryChain, TREASURY_TEST_MNEMONIC } from '@gw/testing';
import { parseAccountSecret } from '../src/account-keys.js';
import { formatAccountReview } from '../src/account-review.js';
import { checkAccountPlan, signAccountPlan } from '../src/account-sign.js';
import { planFileOf } from '../src/account-testing.js';

let chain: EvmTreasuryChain;
const destination = EvmTreasuryChain.freshAddress();
/** The sweeper the 7702 test deploys (to `destination`). */
let sweeper: string;
const TOK = 10n ** 18n;
const USDC = 10n ** 6n;

test.before(async () => {
  chain = await EvmTreasuryChain.start();
  await chain.fundGasAccount();
  await chain.payDeposits(8, (i) => ({ tok: BigInt(i + 1) * TOK, usdc: BigInt(i + 1) * USDC, ...(i < 2 ? { eth: 10n ** 16n } : {}) }));
});
test.after.always(async () => {
  await chain?.stop();
});

const request = (coin: string, indexes: readonly number[], extra: Partial<AccountSweepRequest> = {}): AccountSweepRequest => ({
  coin,
  sources: indexes.map((i) => chain.source(i)),
  destination,
  operatorAccounts: { gas: chain.gasAccount },
  ...extra,
});

/** One round: the file (as the treasury plugin serves it), signed by the signer's code, every signed step verified by the treasury. */
async function signRound(t: import('ava').ExecutionContext, build: AccountPlanBuild, round: 1 | 2, steps: readonly AccountStep[]): Promise<VerifiedStep[]> {
  const file = planFileOf(build, 'eth', chain.network.id, round, steps);
  t.is(file.evm_chain_id, 31337);
  const secret = await parseAccountSecret(TREASURY_TEST_MNEMONIC, '');
  // anvil's own test tokens: contracts the signer does not list, allowed as --allow-unlisted-token would.
  const allowed = { allowUnlistedTokens: [chain.contracts.erc20, chain.contracts.eip3009] };
  // Every transaction's `to` is checked against its data: another address is refused.
  const tx = file.steps.find((s) => s.kind === 'transaction');
  if (tx) {
    const tampered = { ...file, steps: file.steps.map((s) => (s === tx ? { ...s, to: EvmTreasuryChain.freshAddress() } : s)) };
    t.regex(t.throws(() => checkAccountPlan(JSON.parse(JSON.stringify(tampered)), secret, allowed))?.message ?? '', /summary says it goes to/);
  }
  const checked = checkAccountPlan(JSON.parse(JSON.stringify(file)), secret, allowed);
  const signed = signAccountPlan(checked);
  return steps.map((step, i) => {
    t.is(signed.signed[i]!.id, step.id);
    return chain.treasury.verifySigned(step, signed.signed[i]!.signed);
  });
}

/** Every round signed by the signer, then broadcast stage by stage; the receipts' statuses. */
async function execute(t: import('ava').ExecutionContext, build: AccountPlanBuild): Promise<string[]> {
  const round1 = await signRound(t, build, 1, build.steps);
  const [steps, verified] = build.rounds === 1 ? [build.steps, round1] : await roundTwo(t, build, round1);
  return (await chain.broadcast(steps, verified)).map((r) => (r.reverted ? 'reverted' : 'ok'));
}
async function roundTwo(t: import('ava').ExecutionContext, build: AccountPlanBuild, round1: VerifiedStep[]): Promise<[AccountStep[], VerifiedStep[]]> {
  const steps = chain.treasury.continue(build, round1);
  t.true(steps.length > 0);
  return [steps, await signRound(t, build, 2, steps)];
}

test.serial('EVM native: built, signed by the signer, verified, broadcast; each address keeps less than its fee', async (t) => {
  const plan = await chain.treasury.build(request('eth', [0, 1], { method: 'native' }));
  t.deepEqual(await execute(t, plan), ['ok', 'ok']);
  // What stays is the unspent part of each fee's maximum (gas limit × max fee above the base fee paid).
  for (const step of plan.steps)
    t.true((await chain.ethBalance(step.to === destination && step.signer.kind === 'deposit' ? step.signer.address : '')) < step.feeUnits);
  t.is(await chain.ethBalance(destination), plan.movedUnits);
});

test.serial('EVM gas top-up: the gas account tops up, the deposit addresses send their tokens', async (t) => {
  const plan = await chain.treasury.build(request('tok', [0, 1, 2], { method: 'gas_top_up' }));
  t.true((await execute(t, plan)).every((s) => s === 'ok'));
  for (const i of [0, 1, 2]) t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(i).address), 0n);
  t.is(await chain.balanceOf(chain.contracts.erc20, destination), 6n * TOK);
});

test.serial('EVM sweeper deployment: built from chain state, signed by the signer from the gas account, verified, broadcast', async (t) => {
  const treasury = chain.treasury as EvmAccountTreasury;
  const plan = await treasury.buildSweeperDeployment({ destination, operatorAccounts: { gas: chain.gasAccount } });
  t.is(plan.method, 'sweeper_deployment');
  t.is(plan.steps.length, 1);
  const [step] = plan.steps;
  t.like(step, { round: 1, stage: 0, kind: 'transaction', to: String(plan.context['sweeper']) });
  t.is(Transaction.from(step!.unsigned.data).to, null);
  t.is(planFileOf(plan, 'eth', chain.network.id).sweeper_contract, String(plan.context['sweeper']));

  // The review says loudly what the contract does and where it sends.
  const secret = await parseAccountSecret(TREASURY_TEST_MNEMONIC, '');
  const review = formatAccountReview(checkAccountPlan(JSON.parse(JSON.stringify(planFileOf(plan, 'eth', chain.network.id))), secret));
  t.true(review.includes(`  Deploys the token sweeper; every delegated address's tokens will go to ${destination} (EXTERNAL)\n`));
  t.true(review.includes('!!! EXTERNAL: this address does NOT belong to the secret; it is fixed in the contract for good'));
  t.true(review.includes(`contract  ${String(plan.context['sweeper'])}`));

  t.deepEqual(await execute(t, plan), ['ok']);
  sweeper = String(plan.context['sweeper']);
  // The code there is the sweeper's runtime with this destination: the same as a sweeper deployed for it by other means.
  const reference = await chain.anvil.deploy(chain.funder, tokenSweeperInitCode(destination));
  const code = await chain.anvil.rpc<string>('eth_getCode', [sweeper, 'latest']);
  t.true(code.length > 2);
  t.is(code, await chain.anvil.rpc<string>('eth_getCode', [reference, 'latest']));
  const answer = await chain.anvil.rpc<string>('eth_call', [{ to: sweeper, data: TOKEN_SWEEPER_ABI.encodeFunctionData('destination') }, 'latest']);
  t.is(TOKEN_SWEEPER_ABI.decodeFunctionResult('destination', answer)[0], destination);
});

test.serial('EVM sweeper deployment: the signer refuses another creation code, trailing bytes, another chain id, another destination', async (t) => {
  const treasury = chain.treasury as EvmAccountTreasury;
  const plan = await treasury.buildSweeperDeployment({ destination, operatorAccounts: { gas: chain.gasAccount } });
  const secret = await parseAccountSecret(TREASURY_TEST_MNEMONIC, '');
  const [step] = plan.steps;
  const withTx = (change: (tx: Transaction) => void) => {
    const tx = Transaction.from(step!.unsigned.data);
    change(tx);
    const file = planFileOf(plan, 'eth', chain.network.id, 1, [{ ...step!, unsigned: { format: 'evm-tx', data: tx.unsignedSerialized } }]);
    return () => checkAccountPlan(JSON.parse(JSON.stringify(file)), secret);
  };
  /** The refusal as the command prints it: `refused (<code>): <message>`. */
  const message = (f: () => unknown) => {
    const error = t.throws(f) as (Error & { code?: string }) | undefined;
    return `refused (${error?.code}): ${error?.message}`;
  };
  // Another contract's creation code (the ERC-20 of this chain's tests, say): anything but the sweeper.
  t.regex(message(withTx((tx) => (tx.data = `0x6080604052${'00'.repeat(40)}`))), /refused \(unsupported\).*not the token sweeper's/);
  t.regex(
    message(withTx((tx) => (tx.data = tokenSweeperInitCode(destination).replace('0x60a0', '0x60a1')))),
    /refused \(unsupported\).*not the token sweeper's/,
  );
  // The sweeper's code with its destination and anything after it.
  t.regex(message(withTx((tx) => (tx.data = `${tokenSweeperInitCode(destination)}00`))), /followed by 33 bytes, not by one ABI-encoded address/);
  t.regex(message(withTx((tx) => (tx.data = `${tokenSweeperInitCode(destination)}${'00'.repeat(32)}`))), /followed by 64 bytes/);
  // A destination word with dirty high bytes is no address.
  t.regex(
    message(withTx((tx) => (tx.data = `${tokenSweeperInitCode(destination).slice(0, -64)}01${tokenSweeperInitCode(destination).slice(-62)}`))),
    /not by one ABI-encoded address/,
  );
  // Another chain.
  t.regex(message(withTx((tx) => (tx.chainId = 1n))), /refused \(wrong_network\).*chain id 1; the plan is for 31337/);
  // A sweeper for somebody else than the plan's destination.
  t.regex(message(withTx((tx) => (tx.data = tokenSweeperInitCode(EvmTreasuryChain.freshAddress())))), /refused \(plan_mismatch\).*the plan's destination is/);
  // A creation in a sweep plan.
  const inSweep = { ...planFileOf(plan, 'eth', chain.network.id), method: 'gas_top_up' };
  t.regex(
    message(() => checkAccountPlan(JSON.parse(JSON.stringify(inSweep)), secret)),
    /refused \(unsupported\).*a contract creation in a gas_top_up plan/,
  );
  // The contract address the plan states must be the CREATE address of the signer and nonce.
  const otherAddress = { ...planFileOf(plan, 'eth', chain.network.id), sweeper_contract: EvmTreasuryChain.freshAddress() };
  t.regex(
    message(() => checkAccountPlan(JSON.parse(JSON.stringify(otherAddress)), secret)),
    /refused \(plan_mismatch\).*the contract will be at/,
  );
  // The treasury refuses a signed deployment other than the planned one.
  const other = Transaction.from(step!.unsigned.data);
  other.data = `${tokenSweeperInitCode(destination)}00`;
  other.signature = chain.gasWallet.signingKey.sign(other.unsignedHash);
  t.throws(() => chain.treasury.verifySigned(step!, other.serialized), { message: /the signed transaction's data is/ });
});

test.serial('EVM sweeper deployment: no plan without a gas account, for a destination that is no address, or where EIP-7702 is off', async (t) => {
  const treasury = chain.treasury as EvmAccountTreasury;
  await t.throwsAsync(treasury.buildSweeperDeployment({ destination, operatorAccounts: {} }), { code: 'treasury_operator_account_missing' } as never);
  await t.throwsAsync(treasury.buildSweeperDeployment({ destination: '0x1234', operatorAccounts: { gas: chain.gasAccount } }), {
    code: 'validation_error',
  } as never);
  const without7702 = EvmTreasuryChain.treasuryOf(chain.adapter, { ...chain.network, eip7702: false }, chain.anvil.url) as EvmAccountTreasury;
  await t.throwsAsync(without7702.buildSweeperDeployment({ destination, operatorAccounts: { gas: chain.gasAccount } }), {
    code: 'treasury_method_unavailable',
  } as never);
});

test.serial('EVM EIP-7702 sweeper: authorizations (round 1) and the gas account submission (round 2), both signed by the signer', async (t) => {
  const plan = await chain.treasury.build(request('tok', [3, 4, 5], { method: 'eip7702', sweeperContract: sweeper }));
  t.is(plan.rounds, 2);
  t.true((await execute(t, plan)).every((s) => s === 'ok'));
  for (const i of [3, 4, 5]) t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(i).address), 0n);
  t.is(await chain.balanceOf(chain.contracts.erc20, destination), (6n + 4n + 5n + 6n) * TOK);
});

test.serial('EVM EIP-7702, addresses already delegated: one round, the gas account submission signed by the signer', async (t) => {
  for (const i of [3, 4]) await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, chain.source(i).address, TOK);
  const before = await chain.balanceOf(chain.contracts.erc20, destination);
  const plan = await chain.treasury.build(request('tok', [3, 4], { method: 'eip7702', sweeperContract: sweeper }));
  t.is(plan.rounds, 1);
  t.true((await execute(t, plan)).every((s) => s === 'ok'));
  t.is((await chain.balanceOf(chain.contracts.erc20, destination)) - before, 2n * TOK);
});

test.serial('EVM EIP-3009: transferWithAuthorization signatures (round 1) and their submission (round 2), both signed by the signer', async (t) => {
  const plan = await chain.treasury.build(request('usdc', [2, 3, 4, 5, 6, 7], { method: 'eip3009' }));
  t.is(plan.rounds, 2);
  t.true((await execute(t, plan)).every((s) => s === 'ok'));
  for (const i of [2, 3, 4, 5, 6, 7]) t.is(await chain.balanceOf(chain.contracts.eip3009, chain.source(i).address), 0n);
  t.is(await chain.balanceOf(chain.contracts.eip3009, destination), (3n + 4n + 5n + 6n + 7n + 8n) * USDC);
});

test.serial('EVM without Multicall3: the 7702 and 3009 submissions go one transaction per address, signed by the signer', async (t) => {
  const { multicall3: _, ...withoutMulticall } = chain.network;
  const direct = EvmTreasuryChain.treasuryOf(chain.adapter, withoutMulticall, chain.anvil.url);
  const tokBefore = await chain.balanceOf(chain.contracts.erc20, destination);
  const sweep = await direct.build(request('tok', [6, 7], { method: 'eip7702', sweeperContract: sweeper }));
  t.true((await execute(t, sweep)).every((s) => s === 'ok'));
  t.is((await chain.balanceOf(chain.contracts.erc20, destination)) - tokBefore, (7n + 8n) * TOK);
  const usdcBefore = await chain.balanceOf(chain.contracts.eip3009, destination);
  const authorized = await direct.build(request('usdc', [0, 1], { method: 'eip3009' }));
  t.true((await execute(t, authorized)).every((s) => s === 'ok'));
  t.is((await chain.balanceOf(chain.contracts.eip3009, destination)) - usdcBefore, 3n * USDC);
});
