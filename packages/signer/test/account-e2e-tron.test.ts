/**
 * End to end on TRON (issue 36): the REAL TronTreasury (@gw/chain-tron) builds each kind of plan,
 * `accountPlanFile` (@gw/chain-api) writes its file, the signer's own code (`checkAccountPlan`,
 * `signAccountPlan`: what `gateway-signer sign` runs) signs it from the test mnemonic, and the
 * treasury's `verifySigned` accepts every signed step. No TRON node runs here: the treasury reads
 * a local HTTP server that REPLAYS THE RECORDED REAL java-tron (Nile) answers of
 * chains/tron/test/fixtures/treasury (see its README); where a test needs an account the recordings
 * lack, the recorded `getaccount` answer is served with the fields named changed.
 */
import test from 'ava';
import { TronWeb } from 'tronweb';
import type { AccountPlanBuild, AccountTreasury } from '@gw/chain-api';
import { deriveTronAddress } from '@gw/chain-tron';
import {
  accountAnswer,
  baseAnswers,
  fixture,
  FUNDING,
  NILE_TOKEN,
  pool,
  RECORDED_ACCOUNT,
  replay,
  source,
  STAKING,
  TEST_XPUB,
  treasuryFor,
} from '@gw/chain-tron/testing';
import { parseAccountSecret, secp256k1KeyAt } from '../src/account-keys.js';
import { tronAddressOf } from '../src/tron-step.js';
import { formatAccountReview } from '../src/account-review.js';
import { checkAccountPlan, signAccountPlan } from '../src/account-sign.js';
import { planFileOf } from '../src/account-testing.js';
import { MNEMONIC } from '../src/testing.js';

const hex = (address: string): string => TronWeb.address.toHex(address).toLowerCase();

/** A java-tron node replaying the recorded answers, with the token's balance (pool address 0 holds the recorded one) and transfer estimate; an unrecorded call is a 404. */
async function replayNode(accounts: Record<string, string>): Promise<{ treasury: AccountTreasury; close: () => Promise<void> }> {
  const node = await replay(
    baseAnswers(accounts, (path, body) => {
      if (path !== '/wallet/triggerconstantcontract') return undefined;
      if (body['function_selector'] === 'transfer(address,uint256)') return fixture('triggerconstantcontract-transfer-built.json');
      if (body['owner_address'] === hex(pool(0))) return fixture('triggerconstantcontract-balanceof-nile.json');
      const zero = JSON.parse(fixture('triggerconstantcontract-balanceof-nile.json'));
      zero.constant_result = ['0'.repeat(64)];
      return JSON.stringify(zero);
    }),
  );
  return { treasury: treasuryFor(node), close: () => node.close() };
}

/** The plan's file (the same function the treasury plugin serves it with), signed by the signer's code, each signed step verified by the treasury. */
async function signAndVerify(t: import('ava').ExecutionContext, treasury: AccountTreasury, build: AccountPlanBuild): Promise<void> {
  const file = planFileOf(build, 'tron', 'nile');
  // The file travels as JSON text.
  // The recorded Nile test token: a contract the signer does not list, allowed as --allow-unlisted-token would.
  const checked = checkAccountPlan(JSON.parse(JSON.stringify(file)), await parseAccountSecret(MNEMONIC, ''), { allowUnlistedTokens: [NILE_TOKEN] });
  t.deepEqual(checked.notes, []);
  const signed = signAccountPlan(checked);
  t.deepEqual(
    signed.signed.map((s) => s.id),
    build.steps.map((s) => s.id),
  );
  for (const [i, step] of build.steps.entries()) {
    const verified = treasury.verifySigned(step, signed.signed[i]!.signed);
    t.is(verified.kind, 'transaction');
    if (verified.kind === 'transaction') t.is(verified.tx.txid, JSON.parse(step.unsigned.data).txID);
  }
}

test("the signer derives the gateway's TRON pool and operator addresses (m/44'/195'/a'/0/i)", async (t) => {
  const secret = await parseAccountSecret(MNEMONIC, '');
  for (const i of [0, 1, 7]) t.is(tronAddressOf(secp256k1KeyAt(secret, deriveTronAddress(TEST_XPUB, i).path, 195, 'test')), pool(i));
  t.is(tronAddressOf(secp256k1KeyAt(secret, STAKING.path, 195, 'test')), STAKING.address);
});

test('TRON native: TronTreasury builds, the signer signs, verifySigned accepts', async (t) => {
  const node = await replayNode({ [hex(pool(0))]: accountAnswer(pool(0)) });
  try {
    const build = await node.treasury.build({ coin: 'trx', sources: [source(0)], destination: RECORDED_ACCOUNT, operatorAccounts: {} });
    t.is(build.method, 'native');
    await signAndVerify(t, node.treasury, build);
  } finally {
    await node.close();
  }
});

/** Pool address 0 holds 0.5 TRX and the recorded USDT; the staking account has 5000 TRX staked for energy (recorded answer, frozenV2 set). */
const sweepAccounts = () => ({
  [hex(pool(0))]: accountAnswer(pool(0), (a) => (a['balance'] = 500_000)),
  [hex(FUNDING.address)]: accountAnswer(FUNDING.address),
  [hex(STAKING.address)]: accountAnswer(STAKING.address, (a) => (a['frozenV2'] = [{}, { type: 'ENERGY', amount: 5_000_000_000 }, { type: 'TRON_POWER' }])),
});

for (const method of ['energy_burn', 'energy_delegation'] as const) {
  test(`TRON USDT ${method}: TronTreasury builds, the signer signs, verifySigned accepts`, async (t) => {
    const node = await replayNode(sweepAccounts());
    try {
      const build = await node.treasury.build({
        coin: 'usdt_trc20',
        sources: [source(0)],
        destination: RECORDED_ACCOUNT,
        method,
        operatorAccounts: { funding: FUNDING, staking: STAKING },
      });
      t.is(build.method, method);
      t.true(build.steps.length >= 2);
      await signAndVerify(t, node.treasury, build);
    } finally {
      await node.close();
    }
  });
}

test('TRON activation: TronTreasury builds, the signer signs, verifySigned accepts', async (t) => {
  const node = await replayNode({ [hex(FUNDING.address)]: accountAnswer(FUNDING.address) });
  try {
    const build = await node.treasury.buildActivation!({ addresses: [pool(0), pool(1)], operatorAccounts: { funding: FUNDING } });
    t.is(build.steps.length, 2);
    await signAndVerify(t, node.treasury, build);
  } finally {
    await node.close();
  }
});

test('TRON payout: TronTreasury builds a TRX payout from the funding account and a USDT payout from a pool address; the signer lists each recipient, signs, verifySigned accepts', async (t) => {
  const node = await replayNode(sweepAccounts());
  try {
    const trx = await node.treasury.buildPayout!({
      coin: 'trx',
      from: { kind: 'operator', account: FUNDING },
      recipients: [
        { reference: 'r1', address: RECORDED_ACCOUNT, units: 3_000_000n },
        { reference: 'r2', address: pool(5), units: 1_000_000n },
      ],
      operatorAccounts: { funding: FUNDING },
    });
    t.is(trx.method, 'payout');
    await signAndVerify(t, node.treasury, trx);
    const review = formatAccountReview(checkAccountPlan(JSON.parse(JSON.stringify(planFileOf(trx, 'tron', 'nile'))), await parseAccountSecret(MNEMONIC, '')));
    t.true(review.includes('Payout to 2 recipients:'), review);
    t.true(review.includes(`  payout-0: 3.000000 TRX (3000000 sun) to ${RECORDED_ACCOUNT} (EXTERNAL)`), review);
    t.true(review.includes(`  payout-1: 1.000000 TRX (1000000 sun) to ${pool(5)} (EXTERNAL)`), review);
  } finally {
    await node.close();
  }
  // The pool address with the recorded account's TRX: enough for the fee limit of the recorded transfer's energy.
  const rich = await replayNode({ [hex(pool(0))]: accountAnswer(pool(0)) });
  try {
    const usdt = await rich.treasury.buildPayout!({
      coin: 'usdt_trc20',
      from: { kind: 'deposit', source: source(0) },
      recipients: [{ reference: 'p1', address: RECORDED_ACCOUNT, units: 5_000_000n }],
      operatorAccounts: {},
    });
    await signAndVerify(t, rich.treasury, usdt);
  } finally {
    await rich.close();
  }
});
