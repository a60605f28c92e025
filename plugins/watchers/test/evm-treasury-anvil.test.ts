/**
 * The EVM account treasury (`createAccountTreasury` of @gw/chain-evm, issue 36) against a real
 * node: anvil with the Prague rules (EIP-7702). Twenty deposit addresses of the test mnemonic's
 * xpub (derived as the gateway derives them) are paid ETH, an ERC-20 and an EIP-3009 token by real
 * transfers, then gathered: ETH by native sweeps, the ERC-20 by gas top-up and through the 7702
 * sweeper, the 3009 token by transferWithAuthorization. The test is the offline signer (wallets
 * of the mnemonic); the treasury verifies every signed step before it broadcasts it. Lives with the
 * watchers' real-node tests because chain packages take no dependency on @gw/testing.
 */
import { join } from 'node:path';
import test from 'ava';
import type { AccountPlanBuild, AccountStep, AccountSweepRequest, AppError, VerifiedStep } from '@gw/kernel';
import { delegationCodeOf, TOKEN_SWEEPER_CREATION_CODE, tokenSweeperDeployment, tokenSweeperInitCode } from '@gw/chain-evm';
import { compileSolidity, EvmTreasuryChain } from '@gw/testing';
import { getCreateAddress, Transaction, Wallet } from 'ethers';

let chain: EvmTreasuryChain;
/** The sweeper the 7702 test deploys (to `destination`). */
let sweeper: string;
const destination = EvmTreasuryChain.freshAddress();
const TOK = 10n ** 18n;
const USDC = 10n ** 6n;
/** What each of the twenty addresses i = 0..19 receives. */
const tokPaid = (i: number) => BigInt(i + 1) * 3n * TOK;
const usdcPaid = (i: number) => BigInt(i + 1) * 7n * USDC + 1n;
const ethPaid = (i: number) => 10n ** 16n + BigInt(i) * 10n ** 15n;
const ETH_PAID = [0, 1, 2, 3, 4];

test.before(async () => {
  chain = await EvmTreasuryChain.start();
  await chain.fundGasAccount();
  await chain.payDeposits(20, (i) => ({ tok: tokPaid(i), usdc: usdcPaid(i), ...(ETH_PAID.includes(i) ? { eth: ethPaid(i) } : {}) }));
});
test.after.always(async () => {
  await chain?.stop();
});

const sources = (indexes: readonly number[]) => indexes.map((i) => chain.source(i));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const request = (coin: string, indexes: readonly number[], extra: Partial<AccountSweepRequest> = {}): AccountSweepRequest => ({
  coin,
  sources: sources(indexes),
  destination,
  operatorAccounts: { gas: chain.gasAccount },
  ...extra,
});

const signRound = (steps: readonly AccountStep[]): VerifiedStep[] => chain.signRound(steps);
/** Runs a plan; the status of each of its transactions. */
const execute = async (plan: AccountPlanBuild): Promise<string[]> => (await chain.execute(plan)).map((r) => (r.reverted ? 'reverted' : 'ok'));

test.serial('holdings: native and token balances of every address, through Multicall3 and one call per address alike', async (t) => {
  const addresses = sources(range(0, 21)).map((s) => s.address);
  const holdings = await chain.treasury.holdings(addresses);
  t.is(holdings.size, 21);
  for (let i = 0; i < 20; i++) {
    const h = holdings.get(addresses[i]!)!;
    t.deepEqual(h.balances, { eth: ETH_PAID.includes(i) ? ethPaid(i) : 0n, tok: tokPaid(i), usdc: usdcPaid(i) });
    t.is(h.nonce, 0n);
    t.deepEqual(
      h.tokens.map((c) => c.coin),
      ['tok', 'usdc'],
    );
    for (const cost of h.tokens) {
      t.true(cost.moveCostUnits > 0n);
      t.is(cost.gasLackingUnits, ETH_PAID.includes(i) ? 0n : cost.moveCostUnits);
      t.false(cost.dust);
    }
  }
  t.deepEqual(holdings.get(addresses[20]!)!.balances, { eth: 0n, tok: 0n, usdc: 0n });
  const { multicall3: _, ...withoutMulticall } = chain.network;
  const direct = EvmTreasuryChain.treasuryOf(chain.adapter, withoutMulticall, chain.anvil.url);
  const perAddress = await direct.holdings(addresses);
  for (const address of addresses) t.deepEqual(perAddress.get(address)!.balances, holdings.get(address)!.balances);
});

test.serial('the sweeper creation code is TokenSweeper.sol compiled again', (t) => {
  const compiled = compileSolidity([join(import.meta.dirname, '..', '..', '..', 'chains', 'evm', 'src', 'treasury', 'contracts', 'TokenSweeper.sol')]);
  t.is(compiled['TokenSweeper']!.bytecode, TOKEN_SWEEPER_CREATION_CODE);
});

test.serial('quote: each method side by side; 3009 unavailable for a token without it', async (t) => {
  const quotes = await chain.treasury.quote(request('tok', range(0, 20)));
  t.deepEqual(
    quotes.map((q) => [q.method, q.available]),
    [
      ['eip7702', false],
      ['eip3009', false],
      ['gas_top_up', true],
    ],
  );
  t.regex(quotes[0]!.reason!, /no sweeper/);
  t.regex(quotes[1]!.reason!, /does not implement EIP-3009/);
  const topUp = quotes[2]!;
  t.is(
    topUp.movedUnits,
    range(0, 20).reduce((sum, i) => sum + tokPaid(i), 0n),
  );
  t.true(topUp.operatorPaysUnits > 0n && topUp.operatorPaysUnits <= topUp.feeUnits);
  t.false((await chain.treasury.quote(request('tok', [0], { method: 'native' })))[0]!.available);
  const eth = await chain.treasury.quote(request('eth', ETH_PAID));
  t.deepEqual(
    eth.map((q) => [q.method, q.available, q.sources, q.steps]),
    [['native', true, 5, 5]],
  );
  const usdc = await chain.treasury.quote(request('usdc', range(0, 20)));
  t.true(usdc.find((q) => q.method === 'eip3009')!.available);
  const error = await t.throwsAsync<AppError>(chain.treasury.build(request('tok', [0], { method: 'eip3009' })));
  t.is(error.code, 'treasury_method_unavailable');
  const missing = await t.throwsAsync<AppError>(chain.treasury.build(request('tok', [0], { method: 'gas_top_up', operatorAccounts: {} })));
  t.is(missing.code, 'treasury_operator_account_missing');
});

test.serial('a tampered signed transaction, one signed by another key, and garbage are refused', async (t) => {
  const plan = await chain.treasury.build(request('eth', [0]));
  const step = plan.steps[0]!;
  const key = chain.root.derivePath(step.signer.kind === 'deposit' ? step.signer.path : '').privateKey;
  const tampered = Transaction.from(step.unsigned.data);
  tampered.value = tampered.value + 1n;
  tampered.signature = new Wallet(key).signingKey.sign(tampered.unsignedHash);
  t.is(t.throws<AppError>(() => chain.treasury.verifySigned(step, tampered.serialized)).code, 'treasury_signed_mismatch');
  const redirected = Transaction.from(step.unsigned.data);
  redirected.to = EvmTreasuryChain.freshAddress();
  redirected.signature = new Wallet(key).signingKey.sign(redirected.unsignedHash);
  t.regex(t.throws<AppError>(() => chain.treasury.verifySigned(step, redirected.serialized)).message, /to is/);
  const other = Transaction.from(step.unsigned.data);
  other.signature = Wallet.createRandom().signingKey.sign(other.unsignedHash);
  t.is(t.throws<AppError>(() => chain.treasury.verifySigned(step, other.serialized)).code, 'treasury_signed_incomplete');
  t.is(t.throws<AppError>(() => chain.treasury.verifySigned(step, step.unsigned.data)).code, 'treasury_signed_incomplete');
  t.is(t.throws<AppError>(() => chain.treasury.verifySigned(step, 'not a transaction')).code, 'treasury_signed_unreadable');
});

test.serial('a plan whose nonce went stale is refused before anything is broadcast', async (t) => {
  const plan = await chain.treasury.build(request('eth', [4]));
  const verified = signRound(plan.steps);
  // The address sends something else first (its own key, outside the plan).
  const wallet = new Wallet(chain.root.derivePath("m/44'/60'/0'/0/4").privateKey);
  const other = Transaction.from(plan.steps[0]!.unsigned.data);
  other.value = 1n;
  other.signature = wallet.signingKey.sign(other.unsignedHash);
  await chain.anvil.rpc('eth_sendRawTransaction', [other.serialized]);
  const error = await t.throwsAsync<AppError>(chain.treasury.checkFresh(plan.steps));
  t.is(error.code, 'treasury_nonce_stale');
  t.truthy(verified);
});

test.serial('native: each address sends its balance less its fee; the destination receives exactly the planned sum', async (t) => {
  const before = await chain.ethBalance(destination);
  const plan = await chain.treasury.build(request('eth', ETH_PAID));
  t.is(plan.method, 'native');
  t.is(plan.steps.length, 5);
  t.deepEqual(await execute(plan), ['ok', 'ok', 'ok', 'ok', 'ok']);
  t.is((await chain.ethBalance(destination)) - before, plan.movedUnits);
  for (const step of plan.steps) {
    // What the block did not charge of gas × max fee stays (EIP-1559 refund): less than the planned fee.
    t.true((await chain.ethBalance(step.signer.kind === 'deposit' ? step.signer.address : '')) < step.feeUnits);
  }
  // Broadcasting again is idempotent.
  const verified = chain.treasury.verifySigned(plan.steps[0]!, chain.sign(plan.steps[0]!));
  if (verified.kind === 'transaction') t.is(await chain.treasury.broadcast(verified.tx), verified.tx.txid);
});

test.serial('gas top-up: the gas address funds exactly the gas each token address lacks, then the tokens move', async (t) => {
  const indexes = range(0, 10);
  const plan = await chain.treasury.build(request('tok', indexes, { method: 'gas_top_up' }));
  t.is(plan.steps.filter((s) => s.stage === 1).length, 10);
  t.is(plan.steps.filter((s) => s.stage === 2).length, 10);
  const statuses = await execute(plan);
  t.true(statuses.every((s) => s === 'ok'));
  for (const i of indexes) t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(i).address), 0n);
  t.is(
    await chain.balanceOf(chain.contracts.erc20, destination),
    indexes.reduce((sum, i) => sum + tokPaid(i), 0n),
  );
});

test.serial('EIP-7702 sweeper: delegations signed once, the gas address sweeps in a batch; deposit addresses need no gas', async (t) => {
  // The operator deploys the sweeper from its gas account: the unsigned deployment, signed offline.
  const nonce = Number(BigInt(await chain.anvil.rpc<string>('eth_getTransactionCount', [chain.gasAccount.address, 'pending'])));
  const deployment = tokenSweeperDeployment({ chainId: 31337n, nonce, destination, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n });
  deployment.signature = chain.gasWallet.signingKey.sign(deployment.unsignedHash);
  const hash = await chain.anvil.rpc<string>('eth_sendRawTransaction', [deployment.serialized]);
  // Under load anvil may answer the send before its automined block is in place.
  let receipt = await chain.anvil.receipt(hash);
  while (!receipt) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    receipt = await chain.anvil.receipt(hash);
  }
  t.is(receipt.status, '0x1');
  sweeper = getCreateAddress({ from: chain.gasAccount.address, nonce });
  const indexes = range(10, 20);
  const before = await chain.balanceOf(chain.contracts.erc20, destination);
  const plan = await chain.treasury.build(request('tok', indexes, { sweeperContract: sweeper }));
  t.is(plan.method, 'eip7702');
  t.is(plan.rounds, 2);
  t.true(plan.steps.every((s) => s.unsigned.format === 'evm-7702-authorization'));
  // An authorization signed by another key, or delegating elsewhere, is refused.
  const auth = plan.steps[0]!;
  const stranger = Wallet.createRandom();
  t.is(
    t.throws<AppError>(() => chain.treasury.verifySigned(auth, stranger.authorizeSync({ address: sweeper, nonce: 0n, chainId: 31337n }).signature.serialized))
      .code,
    'treasury_signed_incomplete',
  );
  const ownKey = new Wallet(chain.root.derivePath(auth.signer.kind === 'deposit' ? auth.signer.path : '').privateKey);
  const elsewhereAuth = ownKey.authorizeSync({ address: stranger.address, nonce: 0n, chainId: 31337n }).signature.serialized;
  t.is(t.throws<AppError>(() => chain.treasury.verifySigned(auth, elsewhereAuth)).code, 'treasury_signed_incomplete');
  t.deepEqual(await execute(plan), ['ok']);
  for (const i of indexes) {
    const { address } = chain.source(i);
    t.is(await chain.balanceOf(chain.contracts.erc20, address), 0n);
    t.is(await chain.ethBalance(address), 0n);
    t.is(await chain.anvil.rpc('eth_getCode', [address, 'latest']), delegationCodeOf(sweeper));
  }
  t.is(
    (await chain.balanceOf(chain.contracts.erc20, destination)) - before,
    indexes.reduce((sum, i) => sum + tokPaid(i), 0n),
  );
  // A sweeper of another destination is never used.
  const elsewhere = await chain.anvil.deploy(chain.funder, tokenSweeperInitCode(EvmTreasuryChain.freshAddress()));
  const error = await t.throwsAsync<AppError>(chain.treasury.build(request('tok', indexes, { sweeperContract: elsewhere, method: 'eip7702' })));
  t.is(error.code, 'treasury_method_unavailable');
});

test.serial('EIP-7702: already delegated addresses are swept in one round', async (t) => {
  const indexes = range(10, 13);
  for (const i of indexes) await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, chain.source(i).address, TOK);
  const plan = await chain.treasury.build(request('tok', indexes, { sweeperContract: sweeper }));
  t.is(plan.rounds, 1);
  t.deepEqual(await execute(plan), ['ok']);
  for (const i of indexes) t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(i).address), 0n);
});

test.serial('EIP-3009: twenty signed transferWithAuthorization submitted by the gas address in one batch', async (t) => {
  const indexes = range(0, 20);
  const plan = await chain.treasury.build(request('usdc', indexes, { method: 'eip3009' }));
  t.is(plan.rounds, 2);
  t.is(plan.steps.length, 20);
  // A transferWithAuthorization signed for another amount is refused.
  const first = plan.steps[0]!;
  const typed = JSON.parse(first.unsigned.data) as {
    domain: Record<string, string>;
    types: Record<string, { name: string; type: string }[]>;
    message: Record<string, string>;
  };
  const key = new Wallet(chain.root.derivePath(first.signer.kind === 'deposit' ? first.signer.path : '').privateKey);
  const more = await key.signTypedData(typed.domain, typed.types, { ...typed.message, value: (BigInt(typed.message['value']!) + 1n).toString() });
  t.is(t.throws<AppError>(() => chain.treasury.verifySigned(first, more)).code, 'treasury_signed_incomplete');
  t.notThrows(() => chain.treasury.verifySigned(first, chain.sign(first)));
  t.deepEqual(await execute(plan), ['ok']);
  for (const i of indexes) t.is(await chain.balanceOf(chain.contracts.eip3009, chain.source(i).address), 0n);
  t.is(
    await chain.balanceOf(chain.contracts.eip3009, destination),
    indexes.reduce((sum, i) => sum + usdcPaid(i), 0n),
  );
});

test.serial('EIP-7702 is refused where the network has not activated it', async (t) => {
  const { eip7702: _, ...without } = chain.network;
  const treasury = EvmTreasuryChain.treasuryOf(chain.adapter, { ...without, eip7702: false }, chain.anvil.url);
  const error = await t.throwsAsync<AppError>(treasury.build(request('tok', [0], { method: 'eip7702', sweeperContract: destination })));
  t.is(error.code, 'treasury_method_unavailable');
});

test.serial('without Multicall3: one submission per address, for the sweeper and for 3009 alike', async (t) => {
  const { multicall3: _, ...withoutMulticall } = chain.network;
  const treasury = EvmTreasuryChain.treasuryOf(chain.adapter, withoutMulticall, chain.anvil.url);
  const indexes = [21, 22, 23];
  for (const i of indexes) {
    await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, chain.source(i).address, tokPaid(i));
    await chain.anvil.sendToken(chain.contracts.eip3009, chain.funder, chain.source(i).address, usdcPaid(i));
  }
  const tokBefore = await chain.balanceOf(chain.contracts.erc20, destination);
  const usdcBefore = await chain.balanceOf(chain.contracts.eip3009, destination);
  for (const [coin, method] of [
    ['tok', 'eip7702'],
    ['usdc', 'eip3009'],
  ] as const) {
    const plan = await treasury.build(request(coin, indexes, { method, sweeperContract: sweeper }));
    const round1 = plan.steps.map((step) => treasury.verifySigned(step, chain.sign(step)));
    const round2 = treasury.continue(plan, round1);
    t.is(round2.length, 3);
    const verified = round2.map((step) => treasury.verifySigned(step, chain.sign(step)));
    await treasury.checkFresh(round2);
    for (const v of verified) if (v.kind === 'transaction') await treasury.broadcast(v.tx);
    for (const v of verified) {
      if (v.kind !== 'transaction') continue;
      let state = await treasury.transaction(v.tx.txid);
      while (!state?.confirmations) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        state = await treasury.transaction(v.tx.txid);
      }
      t.is(state.failed, undefined);
    }
  }
  for (const i of indexes) {
    t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(i).address), 0n);
    t.is(await chain.balanceOf(chain.contracts.eip3009, chain.source(i).address), 0n);
  }
  t.is(
    (await chain.balanceOf(chain.contracts.erc20, destination)) - tokBefore,
    indexes.reduce((sum, i) => sum + tokPaid(i), 0n),
  );
  t.is(
    (await chain.balanceOf(chain.contracts.eip3009, destination)) - usdcBefore,
    indexes.reduce((sum, i) => sum + usdcPaid(i), 0n),
  );
});

/** Sends a transaction from `address` outside any plan (anvil impersonates it: the account's own key, as far as the chain can tell). */
const sendOutsidePlan = async (address: string): Promise<void> => {
  await chain.anvil.rpc('anvil_impersonateAccount', [address]);
  await chain.anvil.sendEth(address, address, 0n);
  await chain.anvil.rpc('anvil_stopImpersonatingAccount', [address]);
};

/** Broadcasts the verified transactions of `stage` and waits until each is mined; their ids. */
const broadcastStage = async (steps: readonly AccountStep[], verified: readonly VerifiedStep[], stage: number): Promise<string[]> => {
  const ids: string[] = [];
  for (const step of steps.filter((s) => s.stage === stage && s.kind === 'transaction')) {
    const v = verified.find((x) => x.stepId === step.id);
    if (v?.kind === 'transaction') ids.push(await chain.treasury.broadcast(v.tx));
  }
  for (const txid of ids) while (!(await chain.treasury.transaction(txid))?.confirmations) await new Promise((resolve) => setTimeout(resolve, 20));
  return ids;
};

test.serial(
  'checkFresh: a gas top-up plan resumed after stage 1 is fresh (its own transactions moved the nonce); an unrelated transaction of the gas account makes it stale',
  async (t) => {
    const indexes = [30, 31];
    for (const i of indexes) await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, chain.source(i).address, tokPaid(i));
    const plan = await chain.treasury.build(request('tok', indexes, { method: 'gas_top_up' }));
    const verified = signRound(plan.steps);
    const txids = EvmTreasuryChain.txids(verified);
    await chain.treasury.checkFresh(plan.steps, txids);
    await broadcastStage(plan.steps, verified, 1);
    // Resumed after stage 1: the gas account's nonce moved past the top-ups, by the top-ups themselves.
    await t.notThrowsAsync(chain.treasury.checkFresh(plan.steps, txids));
    // Without the ids the chain's copies cannot be found (an EVM id depends on the signature): stale, as before.
    t.is((await t.throwsAsync<AppError>(chain.treasury.checkFresh(plan.steps))).code, 'treasury_nonce_stale');
    await broadcastStage(plan.steps, verified, 2);
    await t.notThrowsAsync(chain.treasury.checkFresh(plan.steps, txids));
    for (const i of indexes) t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(i).address), 0n);

    // Another plan; the gas account sends something else before stage 1: stale, whatever ids are given.
    const again = [32];
    await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, chain.source(32).address, tokPaid(32));
    const next = await chain.treasury.build(request('tok', again, { method: 'gas_top_up' }));
    const nextVerified = signRound(next.steps);
    await sendOutsidePlan(chain.gasAccount.address);
    const error = await t.throwsAsync<AppError>(chain.treasury.checkFresh(next.steps, EvmTreasuryChain.txids(nextVerified)));
    t.is(error.code, 'treasury_nonce_stale');
    t.regex(error.message, /topup-32 was planned/);
  },
);

test.serial(
  'checkFresh, EIP-7702 round 2: a deposit address whose nonce moved since it signed its authorization makes the submission stale; a submission that swept nothing anyway is reported failed',
  async (t) => {
    const indexes = [33, 34];
    for (const i of indexes) await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, chain.source(i).address, tokPaid(i));
    const plan = await chain.treasury.build(request('tok', indexes, { sweeperContract: sweeper }));
    t.is(plan.rounds, 2);
    const round1 = signRound(plan.steps);
    const round2 = chain.treasury.continue(plan, round1);
    const verified = signRound(round2);
    await t.notThrowsAsync(chain.treasury.checkFresh([...plan.steps, ...round2], EvmTreasuryChain.txids(verified)));

    // Deposit address 34 sends a transaction of its own after signing: its authorization no longer holds.
    const moved = chain.source(34).address;
    await chain.anvil.sendEth(chain.funder, moved, 10n ** 16n);
    await sendOutsidePlan(moved);
    for (const steps of [round2, [...plan.steps, ...round2]]) {
      const error = await t.throwsAsync<AppError>(chain.treasury.checkFresh(steps, EvmTreasuryChain.txids(verified)));
      t.is(error.code, 'treasury_nonce_stale');
      t.regex(error.message, /EIP-7702 authorization/);
    }

    // Broadcast regardless (what the check prevents): the chain skips the authorization, the sweep of the plain address succeeds moving nothing.
    const [txid] = await broadcastStage(round2, verified, 1);
    const state = await chain.treasury.transaction(txid!);
    t.regex(state!.failed ?? '', new RegExp(`moved nothing from ${moved}`, 'i'));
    t.is(await chain.balanceOf(chain.contracts.erc20, moved), tokPaid(34));
    t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(33).address), 0n);
  },
);

test.serial('checkFresh, EIP-7702: after its submission lands, the whole plan is fresh (the authorizations used their nonces on chain)', async (t) => {
  const indexes = [35, 36];
  for (const i of indexes) await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, chain.source(i).address, tokPaid(i));
  const plan = await chain.treasury.build(request('tok', indexes, { sweeperContract: sweeper }));
  const round1 = signRound(plan.steps);
  const round2 = chain.treasury.continue(plan, round1);
  const verified = signRound(round2);
  const [txid] = await broadcastStage(round2, verified, 1);
  t.is((await chain.treasury.transaction(txid!))!.failed, undefined);
  await t.notThrowsAsync(chain.treasury.checkFresh([...plan.steps, ...round2], EvmTreasuryChain.txids(verified)));
  for (const i of indexes) t.is(await chain.balanceOf(chain.contracts.erc20, chain.source(i).address), 0n);
});
