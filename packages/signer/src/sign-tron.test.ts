import test from 'ava';
import type { AccountPlanFile, AccountSignedFile } from '@gw/chain-api';
import { TronWeb, utils as tronUtils } from 'tronweb';
import { accountPlan, signAccountPlan, blockHeader, step, tronAccount, tronTrc20Transfer, tronTrxTransfer, tronWeb } from './account-testing.js';

// No TRON node runs here: the transactions are built by tronweb's offline builder (the block
// reference given, as a gateway gives the one it read) and verified by tronweb.

const sign = (plan: AccountPlanFile) => signAccountPlan(plan);

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

async function tronPlan() {
  const destination = TronWeb.createRandom().address;
  const funding = tronAccount(0);
  const deposit = tronAccount(3);
  const activation = await tronTrxTransfer(funding.address, deposit.address, 1_100_000);
  const trc20 = await tronTrc20Transfer(deposit.address, USDT, destination, 12_340_000n);
  const plan = accountPlan({ chain: 'tron', network: 'tron', coin: 'usdt_trc20', method: 'energy_burn', destination, moved_units: '12340000' }, [
    step({
      id: 'topup-3',
      signer: { address: funding.address, path: "m/44'/195'/0'/0/0", kind: 'operator', role: 'funding' },
      format: 'tron-tx',
      data: JSON.stringify(activation),
      nonce: null,
      to: deposit.address,
      moves: { trx: 1_100_000n },
      fee: 1_100_000n,
    }),
    step({
      id: 'transfer-3',
      stage: 2,
      signer: { address: deposit.address, path: "m/44'/195'/0'/0/3" },
      format: 'tron-tx',
      data: JSON.stringify(trc20),
      nonce: null,
      to: destination,
      moves: { usdt_trc20: 12_340_000n },
      fee: 13_000_000n,
    }),
  ]);
  return { plan, destination, funding, deposit };
}

test('a TRON plan: a TRX transfer and a TRC-20 transfer signed over their txID, verified by tronweb', async (t) => {
  const { plan, destination, funding, deposit } = await tronPlan();
  const run = await sign(plan);
  t.is(run.code, 0, run.stderr);
  const signed = JSON.parse(run.stdout) as AccountSignedFile;
  t.like(signed, { format: 'gateway-treasury-account-signed', chain: 'tron', network: 'tron', round: 1 });
  const [activation, transfer] = signed.signed.map((s) => JSON.parse(s.signed) as Parameters<typeof tronWeb.trx.ecRecover>[0]);
  t.is(tronWeb.trx.ecRecover(activation!), funding.address);
  t.is(tronWeb.trx.ecRecover(transfer!), deposit.address);
  // The transaction signed is the plan's, its JSON consistent with raw_data_hex (tronweb's own check).
  for (const [i, tx] of [activation!, transfer!].entries()) {
    const unsigned = JSON.parse(plan.steps[i]!.unsigned.data) as typeof tx;
    t.is(tx.txID, unsigned.txID);
    t.is(tx.raw_data_hex, unsigned.raw_data_hex);
    t.true(tronUtils.transaction.txCheck(tx));
    t.is(tx.signature?.length, 1);
    t.regex(tx.signature![0]!, /^[0-9a-f]{128}(?:1b|1c)$/);
  }
  // tronweb's own signature of the same transaction is the same (RFC 6979 deterministic).
  const byTronweb = await tronWeb.trx.sign(JSON.parse(plan.steps[1]!.unsigned.data), deposit.privateKey);
  t.deepEqual(
    transfer!.signature,
    byTronweb.signature!.map((s: string) => s.toLowerCase()),
  );

  t.true(run.stderr.includes(`sends     1.100000 TRX (1100000 sun) to ${deposit.address}`));
  t.regex(run.stderr, /OWN: the signer of step transfer-3/);
  t.true(run.stderr.includes(`sends     12340000 usdt_trc20 (base units) to ${destination}  (token ${USDT})`));
  t.regex(run.stderr, /TriggerSmartContract: TRC-20 transfer on TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t/);
  t.regex(run.stderr, /fee limit 30000000 sun/);
  t.is(run.stderr.match(/!!! EXTERNAL/g)?.length, 1);
});

test('a TRON energy delegation and its reclaim from the staking account: shown as delegations, moving no coin, signed', async (t) => {
  const staking = tronAccount(0);
  const deposit = tronAccount(8);
  const destination = TronWeb.createRandom().address;
  const delegate = await tronWeb.transactionBuilder.delegateResource(65_000_000, deposit.address, 'ENERGY', staking.address, false, undefined, {
    blockHeader: blockHeader(),
  });
  const reclaim = await tronWeb.transactionBuilder.undelegateResource(65_000_000, deposit.address, 'ENERGY', staking.address, { blockHeader: blockHeader() });
  const signerOf = { address: staking.address, path: "m/44'/195'/0'/0/0", kind: 'operator' as const, role: 'staking' as const };
  const plan = accountPlan({ chain: 'tron', network: 'nile', coin: 'usdt_trc20', method: 'energy_delegation', destination }, [
    step({ id: 'delegate-8', signer: signerOf, format: 'tron-tx', data: JSON.stringify(delegate), nonce: null, to: deposit.address, moves: {} }),
    step({ id: 'reclaim-8', stage: 3, signer: signerOf, format: 'tron-tx', data: JSON.stringify(reclaim), nonce: null, to: deposit.address, moves: {} }),
  ]);
  const run = await sign(plan);
  t.is(run.code, 0, run.stderr);
  t.true(run.stderr.includes(`DelegateResource: the ENERGY of 65000000 sun staked by ${staking.address} to ${deposit.address}`));
  t.true(run.stderr.includes(`UnDelegateResource: reclaims the ENERGY of 65000000 sun delegated by ${staking.address} to ${deposit.address}`));
  for (const signed of (JSON.parse(run.stdout) as AccountSignedFile).signed) t.is(tronWeb.trx.ecRecover(JSON.parse(signed.signed)), staking.address);
  // The receiver is flagged: not a signer of this plan, so EXTERNAL (loudly).
  t.true(run.stderr.includes(`party     ${deposit.address} receives the ENERGY of 65000000 sun\n            !!! EXTERNAL`), run.stderr);
  t.true(run.stderr.includes(`party     ${deposit.address} gives back the ENERGY of 65000000 sun\n            !!! EXTERNAL`));
  // A receiver that is a deposit address signing in the same plan is OWN.
  const transfer = await tronTrxTransfer(deposit.address, destination, 1_000_000);
  const withDeposit = {
    ...plan,
    steps: [
      ...plan.steps,
      step({
        id: 'native-8',
        stage: 2,
        signer: { address: deposit.address, path: "m/44'/195'/0'/0/8" },
        format: 'tron-tx',
        data: JSON.stringify(transfer),
        nonce: null,
        to: destination,
        moves: { trx: 1_000_000n },
      }),
    ],
  };
  const own = await sign(withDeposit);
  t.is(own.code, 0, own.stderr);
  t.true(own.stderr.includes(`party     ${deposit.address} receives the ENERGY of 65000000 sun\n            OWN: the signer of step native-8`), own.stderr);

  // A delegation moves no coin: a summary saying it moves TRX disagrees.
  const claimed = { ...plan, steps: [{ ...plan.steps[0]!, moves: { trx: '65000000' } }] };
  t.regex((await sign(claimed)).stderr, /refused \(plan_mismatch\): step delegate-8: the summary says it moves 65000000 trx; its transaction moves 0/);
});

test('TRON refusals: a signer not of the seed, a summary that disagrees, a txID that is not the hash of raw_data_hex, raw_data that says otherwise', async (t) => {
  const { plan, destination } = await tronPlan();
  const wrongSigner = { ...plan, steps: [{ ...plan.steps[0]!, signer: { ...plan.steps[0]!.signer, path: "m/44'/195'/0'/0/1" } }] };
  t.regex((await sign(wrongSigner)).stderr, /refused \(signer_key_mismatch\): step topup-3/);

  const moreMoved = { ...plan, steps: [{ ...plan.steps[1]!, moves: { usdt_trc20: '99999999' } }] };
  t.regex(
    (await sign(moreMoved)).stderr,
    /refused \(plan_mismatch\): step transfer-3: the summary says it moves 99999999 usdt_trc20; its transaction moves 12340000/,
  );

  const otherTo = { ...plan, steps: [{ ...plan.steps[1]!, to: TronWeb.createRandom().address }] };
  t.regex((await sign(otherTo)).stderr, /refused \(plan_mismatch\): step transfer-3: the summary says it goes to/);

  const tx = JSON.parse(plan.steps[1]!.unsigned.data) as { txID: string; raw_data: { contract: { parameter: { value: Record<string, unknown> } }[] } };
  const badId = { ...plan, steps: [{ ...plan.steps[1]!, unsigned: { format: 'tron-tx' as const, data: JSON.stringify({ ...tx, txID: '00'.repeat(32) }) } }] };
  t.regex((await sign(badId)).stderr, /refused \(plan_mismatch\): step transfer-3: txID 0{64} is not the hash of raw_data_hex/);

  const lying = structuredClone(tx);
  lying.raw_data.contract[0]!.parameter.value['contract_address'] = tronWeb.address.toHex(TronWeb.createRandom().address);
  const badJson = { ...plan, steps: [{ ...plan.steps[1]!, unsigned: { format: 'tron-tx' as const, data: JSON.stringify(lying) } }] };
  t.regex((await sign(badJson)).stderr, /refused \(plan_mismatch\): step transfer-3: the transaction's raw_data JSON does not say what raw_data_hex says/);
  void destination;
});
