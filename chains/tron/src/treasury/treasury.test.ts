/**
 * TronTreasury against a local HTTP server that REPLAYS RECORDED REAL java-tron answers (TRON Nile
 * captures published in TRON's own API reference; see test/fixtures/treasury/README.md for each file,
 * and for the few answers that were built because no recording was found). No TRON node runs here.
 * Transactions are built offline with `tronweb`, signed in the test with `tronweb` (as the offline
 * signer does) and verified by the treasury with the same library. A test that needs an account the
 * recordings do not hold (a derived pool address, a staking account with stake) serves the recorded
 * `getaccount` answer with the named fields changed, and says so.
 */
import test from 'ava';
import { utils as tronUtils } from 'tronweb';
import { AppError, ProviderPool, type AccountStep, type ChainAdapterDeps, type OperatorAccount } from '@gw/chain-api';
import { tronChain } from '../index.js';
import { tronAddressFromHex } from '../derive.js';
import {
  accountAnswer,
  baseAnswers,
  fixture,
  FUNDING,
  json,
  NILE_TOKEN,
  pool,
  RECORDED_ACCOUNT,
  RECORDED_ACCOUNT_HEX,
  replay,
  source,
  STAKING,
  testRoot,
  treasuryFor,
  type Handler,
} from '../testing/index.js';
import {
  bandwidthBytes,
  delegateEnergy,
  hexAddress,
  referenceBlock,
  trc20Transfer,
  trxTransfer,
  undelegateEnergy,
  MAX_EXPIRATION_MS,
  EXPIRATION_MARGIN_MS,
} from './offline-transaction.js';
import { STAGE_ALLOWANCE_MS } from './plan-freshness.js';

// Private keys of the test mnemonic's accounts, as the offline signer holds them.
const depositPriv = (i: number): string => testRoot.derivePath(`m/44'/195'/0'/0/${i}`).privateKey.slice(2);
const operatorPriv = (account: OperatorAccount): string => testRoot.derivePath(account.path).privateKey.slice(2);
const DESTINATION = RECORDED_ACCOUNT;
/** A request to move pool address 0's USDT to DESTINATION (a test adds the method and the operator accounts). */
const pool0Usdt = () => ({ coin: 'usdt_trc20', sources: [source(0)], destination: DESTINATION });

/** Signs a step's unsigned transaction with `tronweb`, as the offline signer does; the signed JSON it gives back. */
function sign(step: AccountStep, privateKey: string): string {
  const unsigned = JSON.parse(step.unsigned.data);
  return JSON.stringify(tronUtils.crypto.signTransaction(privateKey, unsigned));
}

const codeOf = (error: unknown): string => (error as AppError).code;

test('offline builder: tronweb reproduces the recorded Nile createtransaction and triggersmartcontract transactions byte for byte', (t) => {
  const recorded = json('createtransaction-nile.json');
  const ref = {
    ref_block_bytes: recorded.raw_data.ref_block_bytes,
    ref_block_hash: recorded.raw_data.ref_block_hash,
    expiration: recorded.raw_data.expiration,
    timestamp: recorded.raw_data.timestamp,
  };
  const value = recorded.raw_data.contract[0].parameter.value;
  const built = trxTransfer(tronAddressFromHex(`0x${value.owner_address.slice(2)}`), tronAddressFromHex(`0x${value.to_address.slice(2)}`), 1_000_000n, ref);
  t.is(built.txID, recorded.txID);
  t.is(built.raw_data_hex, recorded.raw_data_hex);

  const call = json('triggersmartcontract-nile.json').transaction;
  const data: string = call.raw_data.contract[0].parameter.value.data;
  const built2 = trc20Transfer(
    RECORDED_ACCOUNT,
    NILE_TOKEN,
    tronAddressFromHex(`0x${data.slice(32, 72)}`),
    BigInt(`0x${data.slice(72)}`),
    BigInt(call.raw_data.fee_limit),
    {
      ref_block_bytes: call.raw_data.ref_block_bytes,
      ref_block_hash: call.raw_data.ref_block_hash,
      expiration: call.raw_data.expiration,
      timestamp: call.raw_data.timestamp,
    },
  );
  t.is(built2.txID, call.txID);
  t.is(built2.raw_data_hex, call.raw_data_hex);
});

test('activated(): an address exists when getaccount answers an account (recorded), not when it answers {}', async (t) => {
  const node = await replay(baseAnswers({}));
  try {
    const treasury = treasuryFor(node);
    const found = await treasury.activated!([RECORDED_ACCOUNT, pool(0), pool(1), RECORDED_ACCOUNT]);
    t.deepEqual([...found], [RECORDED_ACCOUNT]);
    // Asked once per address, in the node's hex form.
    t.deepEqual(node.requests.map((r) => r.body.address).sort(), [RECORDED_ACCOUNT_HEX, hexAddress(pool(0)), hexAddress(pool(1))].sort());
    t.true(node.requests.every((r) => r.path === '/wallet/getaccount'));
    t.is(codeOf(await t.throwsAsync(() => treasury.activated!(['not-an-address']))), 'validation_error');
  } finally {
    await node.close();
  }
});

/** Pool addresses 0 and 1 are not on chain; 2 already is (the recorded account answer as pool address 2). The funding account holds the recorded 1793.2272 TRX. */
const activationAccounts = (): Record<string, string> => ({
  [hexAddress(FUNDING.address)]: accountAnswer(FUNDING.address),
  [hexAddress(pool(2))]: accountAnswer(pool(2)),
});

test('buildActivation(): one batch of 1 TRX transfers from the funding account, creation fees counted, already activated addresses left out; signed offline with tronweb and verified', async (t) => {
  const node = await replay(baseAnswers(activationAccounts()));
  try {
    const treasury = treasuryFor(node);
    const build = await treasury.buildActivation!({ addresses: [pool(0), pool(1), pool(2)], operatorAccounts: { funding: FUNDING } });
    t.is(build.method, 'activation');
    t.is(build.rounds, 1);
    t.deepEqual(
      build.steps.map((s) => [s.id, s.stage, s.to, s.moves['trx'], s.feeUnits, s.signer.kind === 'operator' && s.signer.account.role]),
      [
        ['activate-0', 1, pool(0), 1_000_000n, 1_100_000n, 'funding'],
        ['activate-1', 1, pool(1), 1_000_000n, 1_100_000n, 'funding'],
      ],
    );
    // getCreateNewAccountFeeInSystemContract (1 TRX) + getCreateAccountFee (0.1 TRX), from the recorded chain parameters.
    t.is(build.feeUnits, 2_200_000n);
    t.is(build.movedUnits, 2_000_000n);
    t.is(build.operatorPaysUnits, 4_200_000n);
    t.deepEqual(build.skipped, [{ address: pool(2), units: 0n, costUnits: 0n }]);

    // Reference block: the recorded head 66987627 (0x3fe266b), its id bytes 8..15, expiring 24 h (less the margin) after it.
    const head = json('getnowblock-nile-66987627.json');
    const tx = JSON.parse(build.steps[0]!.unsigned.data);
    t.is(tx.raw_data.ref_block_bytes, '266b');
    t.is(tx.raw_data.ref_block_hash, head.blockID.slice(16, 32));
    t.is(BigInt(tx.raw_data.expiration), BigInt(head.block_header.raw_data.timestamp) + MAX_EXPIRATION_MS - EXPIRATION_MARGIN_MS);
    t.is(tx.raw_data.contract[0].parameter.value.owner_address, hexAddress(FUNDING.address));

    for (const step of build.steps) {
      const verified = treasury.verifySigned(step, sign(step, operatorPriv(FUNDING)));
      t.is(verified.kind, 'transaction');
      if (verified.kind !== 'transaction') continue;
      t.is(verified.tx.txid, JSON.parse(step.unsigned.data).txID);
      // The broadcast form is the signed protobuf Transaction: raw data (field 1) then the signature (field 2).
      t.true(verified.tx.hex.includes(JSON.parse(step.unsigned.data).raw_data_hex));
      t.is(tronUtils.crypto.ecRecover(verified.tx.txid, verified.tx.hex.slice(-130)).toLowerCase(), hexAddress(FUNDING.address));
    }
  } finally {
    await node.close();
  }
});

test('verifySigned(): a tampered, unsigned, foreign-signed or unreadable transaction is refused', async (t) => {
  const node = await replay(baseAnswers(activationAccounts()));
  try {
    const treasury = treasuryFor(node);
    const [step] = (await treasury.buildActivation!({ addresses: [pool(0)], operatorAccounts: { funding: FUNDING } })).steps;
    const signed = JSON.parse(sign(step!, operatorPriv(FUNDING)));

    // Another amount, re-encoded and re-signed by the right key: the plan's transaction it is not.
    const tampered = JSON.parse(JSON.stringify(signed));
    tampered.raw_data.contract[0].parameter.value.amount = 900_000_000;
    delete tampered.signature;
    const resigned = tronUtils.crypto.signTransaction(operatorPriv(FUNDING), { ...tampered, ...reencode(tampered.raw_data) });
    const mismatch = t.throws(() => treasury.verifySigned(step!, JSON.stringify(resigned)));
    t.is(codeOf(mismatch), 'treasury_signed_mismatch');
    t.regex(mismatch!.message, /amount is 900000000, the plan has 1000000/);

    // raw_data changed but the signed raw_data_hex kept.
    const lying = JSON.parse(JSON.stringify(signed));
    lying.raw_data.contract[0].parameter.value.to_address = hexAddress(pool(5));
    t.is(codeOf(t.throws(() => treasury.verifySigned(step!, JSON.stringify(lying)))), 'treasury_signed_mismatch');

    // Signed by a deposit key instead of the funding account's.
    t.is(codeOf(t.throws(() => treasury.verifySigned(step!, sign(step!, depositPriv(0))))), 'treasury_signed_incomplete');
    // No signature; a signature that is no signature.
    t.is(codeOf(t.throws(() => treasury.verifySigned(step!, JSON.stringify({ ...signed, signature: [] })))), 'treasury_signed_incomplete');
    t.is(codeOf(t.throws(() => treasury.verifySigned(step!, JSON.stringify({ ...signed, signature: ['00'.repeat(65)] })))), 'treasury_signed_incomplete');
    // Not a signed TRON transaction at all.
    t.is(codeOf(t.throws(() => treasury.verifySigned(step!, 'not json'))), 'treasury_signed_unreadable');
    t.is(codeOf(t.throws(() => treasury.verifySigned(step!, '{"hex":"00"}'))), 'treasury_signed_unreadable');
    // The untouched one passes.
    t.is(treasury.verifySigned(step!, JSON.stringify(signed)).stepId, step!.id);
  } finally {
    await node.close();
  }
});

function reencode(raw_data: unknown): { txID: string; raw_data_hex: string } {
  const pb = tronUtils.transaction.txJsonToPb({ raw_data });
  return { txID: tronUtils.transaction.txPbToTxID(pb).replace(/^0x/, ''), raw_data_hex: tronUtils.transaction.txPbToRawDataHex(pb).toLowerCase() };
}

test('buildActivation(): refused without a funding account, or when the funding account cannot pay', async (t) => {
  const poor = { [hexAddress(FUNDING.address)]: accountAnswer(FUNDING.address, (a) => (a.balance = 2_000_000)) }; // recorded answer, balance changed
  const node = await replay(baseAnswers(poor));
  try {
    const treasury = treasuryFor(node);
    t.is(codeOf(await t.throwsAsync(() => treasury.buildActivation!({ addresses: [pool(0)], operatorAccounts: {} }))), 'treasury_operator_account_missing');
    t.is(
      codeOf(await t.throwsAsync(() => treasury.buildActivation!({ addresses: [pool(0), pool(1)], operatorAccounts: { funding: FUNDING } }))),
      'treasury_insufficient_value',
    );
  } finally {
    await node.close();
  }
});

test('broadcast(): the recorded SUCCESS answer and DUP_TRANSACTION_ERROR resolve with the txid (idempotent); SIGERROR is treasury_broadcast_rejected', async (t) => {
  let answer = fixture('broadcast-success.json');
  const node = await replay(baseAnswers(activationAccounts(), (path) => (path === '/wallet/broadcasthex' ? answer : undefined)));
  try {
    const treasury = treasuryFor(node);
    const [step] = (await treasury.buildActivation!({ addresses: [pool(0)], operatorAccounts: { funding: FUNDING } })).steps;
    const verified = treasury.verifySigned(step!, sign(step!, operatorPriv(FUNDING)));
    if (verified.kind !== 'transaction') return t.fail();
    t.is(await treasury.broadcast(verified.tx), verified.tx.txid);
    const sent = node.requests.find((r) => r.path === '/wallet/broadcasthex');
    t.deepEqual(sent?.body, { transaction: verified.tx.hex });

    answer = fixture('broadcast-dup-built.json');
    t.is(await treasury.broadcast(verified.tx), verified.tx.txid);

    answer = fixture('broadcast-sigerror-built.json');
    const refused = await t.throwsAsync(() => treasury.broadcast(verified.tx));
    t.is(codeOf(refused), 'treasury_broadcast_rejected');
    t.regex(refused!.message, /SIGERROR validateSignature error/);
  } finally {
    await node.close();
  }
});

test('transaction(): the recorded gettransactioninfobyid answer gives its block, confirmations against the recorded head and the fee; {} is null', async (t) => {
  const info = json('gettransactioninfobyid-nile.json');
  let failedInfo = '{}';
  const node = await replay(
    baseAnswers({}, (path, body) =>
      path === '/wallet/gettransactioninfobyid'
        ? body.value === info.id
          ? fixture('gettransactioninfobyid-nile.json')
          : body.value === 'ff'.repeat(32)
            ? failedInfo
            : '{}'
        : undefined,
    ),
  );
  try {
    const treasury = treasuryFor(node);
    t.deepEqual(await treasury.transaction(info.id), {
      txid: info.id,
      confirmations: 66987627 - 66985120 + 1,
      blockHeight: 66985120,
      blockHash: null,
      feeUnits: 5_254_500n,
    });
    t.is(await treasury.transaction('00'.repeat(32)), null);
    // The recorded info with its receipt changed to a transfer that ran out of energy: included, but it moved nothing.
    failedInfo = JSON.stringify({ ...info, id: 'ff'.repeat(32), result: 'FAILED', receipt: { ...info.receipt, result: 'OUT_OF_ENERGY' } });
    t.like(await treasury.transaction('ff'.repeat(32)), { blockHeight: 66985120, failed: 'OUT_OF_ENERGY' });
  } finally {
    await node.close();
  }
});

test('checkFresh(): an expired plan is refused with treasury_nonce_stale before any broadcast, unless its transaction is already on chain; a funding account that spent its TRX makes it stale too', async (t) => {
  let head = fixture('getnowblock-nile-66987627.json');
  let known = new Set<string>();
  let fundingAnswer = accountAnswer(FUNDING.address);
  const handler = baseAnswers({ ...activationAccounts() }, (path, body) => {
    if (path === '/wallet/getnowblock') return head;
    if (path === '/wallet/getaccount' && body.address === hexAddress(FUNDING.address)) return fundingAnswer;
    if (path === '/wallet/gettransactioninfobyid')
      return known.has(body.value) ? JSON.stringify({ ...json('gettransactioninfobyid-nile.json'), id: body.value }) : '{}';
    return undefined;
  });
  const node = await replay(handler);
  try {
    const treasury = treasuryFor(node);
    const build = await treasury.buildActivation!({ addresses: [pool(0), pool(1)], operatorAccounts: { funding: FUNDING } });
    await t.notThrowsAsync(() => treasury.checkFresh(build.steps));

    // The recorded head with its timestamp moved past the plan's expiration.
    const later = json('getnowblock-nile-66987627.json');
    later.block_header.raw_data.timestamp = JSON.parse(build.steps[0]!.unsigned.data).raw_data.expiration + 3000;
    head = JSON.stringify(later);
    const stale = await t.throwsAsync(() => treasury.checkFresh(build.steps));
    t.is(codeOf(stale), 'treasury_nonce_stale');
    t.regex(stale!.message, /expired/);
    known = new Set(build.steps.map((s) => JSON.parse(s.unsigned.data).txID));
    await t.notThrowsAsync(() => treasury.checkFresh(build.steps), 'a step already on chain is not stale');

    head = fixture('getnowblock-nile-66987627.json');
    known = new Set();
    fundingAnswer = accountAnswer(FUNDING.address, (a) => (a.balance = 3_000_000)); // recorded answer, balance changed
    const spent = await t.throwsAsync(() => treasury.checkFresh(build.steps));
    t.is(codeOf(spent), 'treasury_nonce_stale');
    t.regex(spent!.message, /holds 3 trx, the plan sends 4\.2/);
    t.false(node.requests.some((r) => r.path === '/wallet/broadcasthex'));
  } finally {
    await node.close();
  }
});

/** `triggerconstantcontract`: the recorded balanceOf answer for pool address 0 (1087.36 of the test USDT), zero for others (the recorded answer, constant_result changed); transfers answer `transfer`. */
function tokenAnswers(transfer: string): Handler {
  return (path, body) => {
    if (path !== '/wallet/triggerconstantcontract') return undefined;
    if (body.function_selector === 'transfer(address,uint256)') return transfer;
    if (body.function_selector !== 'balanceOf(address)') return undefined;
    if (body.owner_address === hexAddress(pool(0))) return fixture('triggerconstantcontract-balanceof-nile.json');
    const zero = json('triggerconstantcontract-balanceof-nile.json');
    zero.constant_result = ['0'.repeat(64)];
    return JSON.stringify(zero);
  };
}
const RECORDED_USDT = 0x40cfcc00n; // constant_result of the recorded balanceOf answer: 1087.36 units of 6 decimals

test('holdings(): TRX from getaccount, TRC-20 from the recorded balanceOf answer, the move cost from the transfer simulation × getEnergyFee plus the bandwidth the address cannot cover', async (t) => {
  const node = await replay(
    baseAnswers({ [hexAddress(pool(0))]: accountAnswer(pool(0)) }, tokenAnswers(fixture('triggerconstantcontract-transfer-built.json'))),
  );
  try {
    const treasury = treasuryFor(node);
    const holdings = await treasury.holdings([pool(0), pool(1)]);
    const first = holdings.get(pool(0))!;
    t.deepEqual(first.balances, { trx: 1_793_227_200n, usdt_trc20: RECORDED_USDT });
    t.is(first.nonce, 0n);
    // 64285 energy at 100 sun, and every byte of bandwidth at 1000 sun: the recorded account has 600 - 441 = 159 free bytes left, less than a transfer needs.
    const head = json('getnowblock-nile-66987627.json');
    const ref = referenceBlock({
      height: BigInt(head.block_header.raw_data.number),
      blockId: head.blockID,
      timestamp: BigInt(head.block_header.raw_data.timestamp),
    });
    const bytes = bandwidthBytes(trc20Transfer(pool(0), NILE_TOKEN, pool(0), RECORDED_USDT, 7_714_200n, ref).raw_data_hex);
    t.true(bytes > 159n);
    t.deepEqual(first.tokens, [{ coin: 'usdt_trc20', moveCostUnits: 6_428_500n + bytes * 1000n, gasLackingUnits: 0n, dust: false }]);
    t.deepEqual(holdings.get(pool(1)), { address: pool(1), balances: { trx: 0n, usdt_trc20: 0n }, nonce: 0n, tokens: [] });
  } finally {
    await node.close();
  }
});

test('energy estimate: energy_burn prices the transfer at the recorded triggerconstantcontract energy_used × getEnergyFee, with a 20 % fee_limit margin', async (t) => {
  const accounts = { [hexAddress(pool(0))]: accountAnswer(pool(0)), [hexAddress(FUNDING.address)]: accountAnswer(FUNDING.address) };
  // The recorded Nile answer (energy_used 935) served for the transfer simulation.
  const node = await replay(baseAnswers(accounts, tokenAnswers(fixture('triggerconstantcontract-balanceof-nile.json'))));
  try {
    const treasury = treasuryFor(node);
    const build = await treasury.build({ ...pool0Usdt(), method: 'energy_burn', operatorAccounts: { funding: FUNDING } });
    const [transfer] = build.steps;
    const tx = JSON.parse(transfer!.unsigned.data);
    const bytes = bandwidthBytes(tx.raw_data_hex);
    t.is(transfer!.feeUnits, 935n * 100n + bytes * 1000n);
    t.is(tx.raw_data.fee_limit, 112_200); // 93,500 sun + 20 %
    t.is(tx.raw_data.contract[0].type, 'TriggerSmartContract');
    t.is(tx.raw_data.contract[0].parameter.value.contract_address, hexAddress(NILE_TOKEN));
    // The recorded account holds far more TRX than the fee limit: no top-up, one stage.
    t.deepEqual(
      build.steps.map((s) => [s.id, s.stage]),
      [['transfer-0', 1]],
    );
    t.is(build.operatorPaysUnits, 0n);
    t.is(build.movedUnits, RECORDED_USDT);
    const simulated = node.requests.find((r) => r.body.function_selector === 'transfer(address,uint256)');
    t.is(simulated?.body.owner_address, hexAddress(pool(0)));
    t.is(simulated?.body.parameter, `${hexAddress(DESTINATION).slice(2).padStart(64, '0')}${RECORDED_USDT.toString(16).padStart(64, '0')}`);
  } finally {
    await node.close();
  }
});

/** Pool address 0 holds 0.5 TRX (the recorded account, balance changed); the staking account has 5000 TRX staked for energy (recorded account, frozenV2 ENERGY amount set). */
function sweepAccounts(): Record<string, string> {
  return {
    [hexAddress(pool(0))]: accountAnswer(pool(0), (a) => (a.balance = 500_000)),
    [hexAddress(FUNDING.address)]: accountAnswer(FUNDING.address),
    [hexAddress(STAKING.address)]: accountAnswer(
      STAKING.address,
      (a) => (a.frozenV2 = [{}, { type: 'ENERGY', amount: 5_000_000_000 }, { type: 'TRON_POWER' }]),
    ),
  };
}

test('quote() shows both USDT costs; energy_delegation (delegate, transfer, reclaim) is cheaper than energy_burn (top-up, transfer), and build() picks it; every step signs offline and verifies', async (t) => {
  const node = await replay(baseAnswers(sweepAccounts(), tokenAnswers(fixture('triggerconstantcontract-transfer-built.json'))));
  try {
    const treasury = treasuryFor(node);
    t.deepEqual(treasury.methods('usdt_trc20'), ['energy_delegation', 'energy_burn']);
    t.deepEqual(treasury.methods('trx'), ['native']);
    const request = { coin: 'usdt_trc20', sources: [source(0), source(1)], destination: DESTINATION, operatorAccounts: { funding: FUNDING, staking: STAKING } };
    const quotes = await treasury.quote(request);
    t.deepEqual(
      quotes.map((q) => [q.method, q.available, q.sources, q.movedUnits, q.steps]),
      [
        ['energy_delegation', true, 1, RECORDED_USDT, 3],
        ['energy_burn', true, 1, RECORDED_USDT, 2],
      ],
    );
    const [delegation, burn] = quotes;
    t.true(delegation!.feeUnits < burn!.feeUnits);

    const build = await treasury.build(request);
    t.is(build.method, 'energy_delegation');
    t.deepEqual(
      build.steps.map((s) => [s.id, s.stage, s.signer.kind === 'operator' ? s.signer.account.role : 'deposit']),
      [
        ['delegate-0', 1, 'staking'],
        ['transfer-0', 2, 'deposit'],
        ['reclaim-0', 3, 'staking'],
      ],
    );
    // 64285 energy + 20 % at the recorded network totals (TotalEnergyLimit 180,000,000,000 / TotalEnergyWeight 2,411,528,185): 1034 TRX of stake.
    const delegate = JSON.parse(build.steps[0]!.unsigned.data).raw_data.contract[0];
    t.is(delegate.type, 'DelegateResourceContract');
    t.deepEqual(delegate.parameter.value, {
      owner_address: hexAddress(STAKING.address),
      receiver_address: hexAddress(pool(0)),
      balance: 1_034_000_000,
      resource: 'ENERGY',
    });
    t.is(JSON.parse(build.steps[2]!.unsigned.data).raw_data.contract[0].type, 'UnDelegateResourceContract');
    // The transfer pays bandwidth only; pool address 1 holds no USDT and is left out.
    const transferBytes = bandwidthBytes(JSON.parse(build.steps[1]!.unsigned.data).raw_data_hex);
    t.is(build.steps[1]!.feeUnits, transferBytes * 1000n);
    t.deepEqual(build.skipped, [{ address: pool(1), units: 0n, costUnits: 0n }]);

    for (const step of build.steps) {
      const key = step.signer.kind === 'deposit' ? depositPriv(step.signer.index) : operatorPriv(step.signer.account);
      t.is(treasury.verifySigned(step, sign(step, key)).kind, 'transaction');
    }

    const burnBuild = await treasury.build({ ...request, method: 'energy_burn' });
    t.deepEqual(
      burnBuild.steps.map((s) => [s.id, s.stage]),
      [
        ['topup-0', 1],
        ['transfer-0', 2],
      ],
    );
    // The top-up brings what pool address 0 lacks for the fee limit (6,428,500 sun + 20 %) and the bandwidth, beyond its 0.5 TRX.
    const burnTransfer = JSON.parse(burnBuild.steps[1]!.unsigned.data);
    const lacking = 7_714_200n + bandwidthBytes(burnTransfer.raw_data_hex) * 1000n - 500_000n;
    t.deepEqual(burnBuild.steps[0]!.moves, { trx: lacking });
    t.is(burnBuild.steps[1]!.feeUnits, 6_428_500n + bandwidthBytes(burnTransfer.raw_data_hex) * 1000n);
  } finally {
    await node.close();
  }
});

test('quote(): without a staking account energy_delegation is unavailable with its reason and build() falls back to energy_burn; a native-only method for USDT is refused', async (t) => {
  const node = await replay(baseAnswers(sweepAccounts(), tokenAnswers(fixture('triggerconstantcontract-transfer-built.json'))));
  try {
    const treasury = treasuryFor(node);
    const request = { ...pool0Usdt(), operatorAccounts: { funding: FUNDING } };
    const [delegation, burn] = await treasury.quote(request);
    t.false(delegation!.available);
    t.regex(delegation!.reason!, /staking/);
    t.true(burn!.available);
    t.is((await treasury.build(request)).method, 'energy_burn');
    t.is(codeOf(await t.throwsAsync(() => treasury.build({ ...request, method: 'native' }))), 'treasury_method_unavailable');
    t.is(codeOf(await t.throwsAsync(() => treasury.build({ ...request, method: 'energy_burn', operatorAccounts: {} }))), 'treasury_operator_account_missing');
    t.is(codeOf(await t.throwsAsync(() => treasury.build({ ...request, destination: 'bc1qnotatronaddress' }))), 'treasury_wrong_network');
    t.is(codeOf(await t.throwsAsync(() => treasury.build({ ...request, sources: [{ ...source(0), index: 7 }] }))), 'validation_error');
  } finally {
    await node.close();
  }
});

test('native: each address sends its TRX less the bandwidth it burns, signed offline by its derived key; an address holding less than its fee is skipped', async (t) => {
  const accounts = {
    [hexAddress(pool(0))]: accountAnswer(pool(0)),
    [hexAddress(pool(1))]: accountAnswer(pool(1), (a) => (a.balance = 100)), // recorded answer, balance changed
  };
  const node = await replay(baseAnswers(accounts));
  try {
    const treasury = treasuryFor(node);
    const build = await treasury.build({ coin: 'trx', sources: [source(0), source(1)], destination: DESTINATION, operatorAccounts: {} });
    t.is(build.method, 'native');
    const [step] = build.steps;
    const tx = JSON.parse(step!.unsigned.data);
    const fee = bandwidthBytes(tx.raw_data_hex) * 1000n;
    t.is(step!.feeUnits, fee);
    t.deepEqual(tx.raw_data.contract[0].parameter.value, {
      amount: Number(1_793_227_200n - fee),
      owner_address: hexAddress(pool(0)),
      to_address: RECORDED_ACCOUNT_HEX,
    });
    t.is(build.movedUnits, 1_793_227_200n - fee);
    t.is(build.skipped.length, 1);
    t.is(build.skipped[0]!.address, pool(1));
    t.is(step!.signer.kind === 'deposit' && step!.signer.path, "m/44'/195'/0'/0/0");
    t.is(treasury.verifySigned(step!, sign(step!, depositPriv(0))).kind, 'transaction');
    t.is(codeOf(t.throws(() => treasury.verifySigned(step!, sign(step!, depositPriv(1))))), 'treasury_signed_incomplete');
  } finally {
    await node.close();
  }
});

test('the TRON adapter offers the account treasury its definition declares (with activation)', (t) => {
  t.true(tronChain.definition.capabilities.accountTreasury);
  t.true(tronChain.definition.capabilities.requiresActivation);
  const own = tronChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, tronChain.definition);
  const providers = new ProviderPool({ chain: 'tron', network: 'tron', endpoints: [{ name: 'none', url: 'http://127.0.0.1:9' }], timeoutMs: 1_000 });
  const treasury = own.createAccountTreasury!({ network: tronChain.definition.networks.mainnet, providers });
  t.is(treasury.nativeCoin, 'trx');
  t.is(typeof treasury.activated, 'function');
  t.is(typeof treasury.buildActivation, 'function');
  t.deepEqual(treasury.methods('usdt_trc20'), ['energy_delegation', 'energy_burn']);
  t.deepEqual(treasury.methods('btc'), []);
});

test('energy_delegation: a staking account without enough stake makes the method unavailable (insufficient value), with the amount it needs', async (t) => {
  const accounts = {
    ...sweepAccounts(),
    // The recorded account as staking account: its frozenV2 holds no ENERGY stake, as recorded.
    [hexAddress(STAKING.address)]: accountAnswer(STAKING.address),
  };
  const node = await replay(baseAnswers(accounts, tokenAnswers(fixture('triggerconstantcontract-transfer-built.json'))));
  try {
    const treasury = treasuryFor(node);
    const request = { ...pool0Usdt(), operatorAccounts: { funding: FUNDING, staking: STAKING } };
    const [delegation] = await treasury.quote(request);
    t.false(delegation!.available);
    t.regex(delegation!.reason!, /can delegate the energy of 0 TRX staked; the plan needs 1034 TRX/);
    t.is(codeOf(await t.throwsAsync(() => treasury.build({ ...request, method: 'energy_delegation' }))), 'treasury_insufficient_value');
    t.is((await treasury.build(request)).method, 'energy_burn');
  } finally {
    await node.close();
  }
});

test('offline builder: tronweb reproduces the recorded wallet-cli DelegateResource / UnDelegateResource (ENERGY) transactions, and their signed forms are what broadcasthex takes (raw data, then a signature recovering to the owner)', (t) => {
  const recorded = json('wallet-cli-delegate-undelegate.json');
  for (const [kind, build] of [
    ['delegate', delegateEnergy],
    ['undelegate', undelegateEnergy],
  ] as const) {
    const r = recorded[kind];
    const value = r.raw_data.contract[0].parameter.value;
    const { ref_block_bytes, ref_block_hash, expiration, timestamp } = r.raw_data;
    const built = build(value.owner_address, value.receiver_address, BigInt(value.balance), { ref_block_bytes, ref_block_hash, expiration, timestamp });
    t.is(built.raw_data_hex, r.raw_data_hex, kind);

    // The signed transaction wallet-cli broadcast (its signing step set a later expiration): field 1 the raw data, field 2 the signature.
    const signed: string = r.signed_hex;
    t.is(signed.slice(0, 2), '0a');
    const rawLength = (parseInt(signed.slice(2, 4), 16) & 0x7f) + (parseInt(signed.slice(4, 6), 16) << 7); // a two-byte varint
    const raw = signed.slice(6, 6 + rawLength * 2);
    t.is(signed.slice(6 + rawLength * 2, 10 + rawLength * 2), '1241');
    const signature = signed.slice(10 + rawLength * 2);
    const txid = tronUtils.crypto.SHA256(Buffer.from(raw, 'hex'));
    t.is(Buffer.from(txid).toString('hex'), r.txid);
    t.is(tronUtils.crypto.ecRecover(r.txid, signature).toLowerCase(), hexAddress(value.owner_address));
  }
});

test('energy_delegation to an address not on chain: the funding account activates it with the TRX for its bandwidth first (stage 1), then delegate, transfer, reclaim', async (t) => {
  const accounts = sweepAccounts();
  delete accounts[hexAddress(pool(0))]; // pool address 0 holds the recorded USDT but never received TRX: getaccount answers {}
  const node = await replay(baseAnswers(accounts, tokenAnswers(fixture('triggerconstantcontract-transfer-built.json'))));
  try {
    const treasury = treasuryFor(node);
    const build = await treasury.build({ ...pool0Usdt(), method: 'energy_delegation', operatorAccounts: { funding: FUNDING, staking: STAKING } });
    t.deepEqual(
      build.steps.map((s) => [s.id, s.stage]),
      [
        ['topup-0', 1],
        ['delegate-0', 2],
        ['transfer-0', 3],
        ['reclaim-0', 4],
      ],
    );
    const transferFee = build.steps[2]!.feeUnits;
    t.deepEqual(build.steps[0]!.moves, { trx: transferFee });
    t.is(build.steps[0]!.feeUnits, 1_100_000n); // creating the account
    t.regex(build.steps[0]!.description, /activates it/);
    await t.throwsAsync(() => treasury.build({ ...pool0Usdt(), method: 'energy_delegation', operatorAccounts: { staking: STAKING } }), {
      message: /No funding account/,
    });
  } finally {
    await node.close();
  }
});

test('checkFresh(): every stage still to go needs STAGE_ALLOWANCE_MS before the expiration the plan shares; a 3-stage plan is refused where a 1-stage plan still passes, and passes again once its first stage is on chain', async (t) => {
  let head = fixture('getnowblock-nile-66987627.json');
  let known = new Set<string>();
  const token = tokenAnswers(fixture('triggerconstantcontract-transfer-built.json'));
  const node = await replay(
    baseAnswers(sweepAccounts(), (path, body) => {
      if (path === '/wallet/getnowblock') return head;
      if (path === '/wallet/gettransactioninfobyid')
        return known.has(body.value) ? JSON.stringify({ ...json('gettransactioninfobyid-nile.json'), id: body.value }) : '{}';
      return token(path, body);
    }),
  );
  try {
    const treasury = treasuryFor(node);
    const request = { ...pool0Usdt(), operatorAccounts: { funding: FUNDING, staking: STAKING } };
    const build = await treasury.build({ ...request, method: 'energy_delegation' });
    t.deepEqual([...new Set(build.steps.map((s) => s.stage))], [1, 2, 3]);
    const activation = await treasury.buildActivation!({ addresses: [pool(5)], operatorAccounts: { funding: FUNDING } });
    await t.notThrowsAsync(() => treasury.checkFresh(build.steps));

    // The recorded head with its timestamp moved to 2.5 allowances before the plans' shared expiration.
    const expiration = JSON.parse(build.steps[0]!.unsigned.data).raw_data.expiration as number;
    const later = json('getnowblock-nile-66987627.json');
    later.block_header.raw_data.timestamp = expiration - Number((STAGE_ALLOWANCE_MS * 5n) / 2n);
    head = JSON.stringify(later);
    const stale = await t.throwsAsync(() => treasury.checkFresh(build.steps));
    t.is(codeOf(stale), 'treasury_nonce_stale');
    t.regex(stale!.message, /reclaim-0 .*3 stages/);
    await t.notThrowsAsync(() => treasury.checkFresh(activation.steps), 'one stage fits');

    // Resumed after stage 1 (the delegation on chain): two stages to go fit.
    known = new Set([JSON.parse(build.steps[0]!.unsigned.data).txID]);
    await t.notThrowsAsync(() => treasury.checkFresh(build.steps));
    t.false(node.requests.some((r) => r.path === '/wallet/broadcasthex'));
  } finally {
    await node.close();
  }
});

test('buildPayout() TRX: one TransferContract per recipient from the funding account, stage 0, a new recipient pays its creation; signed offline and verified', async (t) => {
  const node = await replay(baseAnswers({ [hexAddress(FUNDING.address)]: accountAnswer(FUNDING.address) }));
  try {
    const treasury = treasuryFor(node);
    const build = await treasury.buildPayout!({
      coin: 'trx',
      from: { kind: 'operator', account: FUNDING },
      recipients: [
        { reference: 'refund-1', address: pool(0), units: 2_500_000n },
        { reference: 'payout-2', address: RECORDED_ACCOUNT, units: 10_000_000n },
      ],
      operatorAccounts: { funding: FUNDING },
    });
    t.like(build, { method: 'payout', coin: 'trx', rounds: 1, movedUnits: 12_500_000n, destination: `${pool(0)},${RECORDED_ACCOUNT}` });
    t.deepEqual(JSON.parse(String(build.context['recipients'])), [
      { reference: 'refund-1', address: pool(0), units: '2500000' },
      { reference: 'payout-2', address: RECORDED_ACCOUNT, units: '10000000' },
    ]);
    t.deepEqual(
      build.steps.map((s) => [s.id, s.stage, s.to, s.moves, s.signer.kind === 'operator' && s.signer.account.role]),
      [
        ['payout-0', 0, pool(0), { trx: 2_500_000n }, 'funding'],
        ['payout-1', 0, RECORDED_ACCOUNT, { trx: 10_000_000n }, 'funding'],
      ],
    );
    // The recorded account (as the funding account) has 159 free bytes left, less than a transfer: each burns its bandwidth at 1000 sun a byte,
    // and the first creates pool(0)'s account (1 TRX + 0.1 TRX, the recorded chain parameters).
    const [first, second] = build.steps.map((s) => JSON.parse(s.unsigned.data));
    t.true(bandwidthBytes(first.raw_data_hex) > 159n);
    t.is(build.steps[0]!.feeUnits, 1_100_000n + bandwidthBytes(first.raw_data_hex) * 1000n);
    t.is(build.steps[1]!.feeUnits, bandwidthBytes(second.raw_data_hex) * 1000n);
    t.is(build.operatorPaysUnits, build.feeUnits);
    t.is(first.raw_data.contract[0].parameter.value.to_address, hexAddress(pool(0)));
    t.is(first.raw_data.contract[0].parameter.value.owner_address, hexAddress(FUNDING.address));
    for (const step of build.steps) {
      const verified = treasury.verifySigned(step, sign(step, operatorPriv(FUNDING)));
      t.is(verified.kind === 'transaction' && verified.tx.txid, JSON.parse(step.unsigned.data).txID);
    }
    // Signed by another key: refused.
    t.is(codeOf(t.throws(() => treasury.verifySigned(build.steps[0]!, sign(build.steps[0]!, depositPriv(0))))), 'treasury_signed_incomplete');
  } finally {
    await node.close();
  }
});

test('buildPayout() TRC-20: a transfer per recipient from a pool address, energy burned at the recorded simulation with a 20 % fee_limit margin; signed by its deposit key and verified', async (t) => {
  const node = await replay(
    baseAnswers({ [hexAddress(pool(0))]: accountAnswer(pool(0)) }, tokenAnswers(fixture('triggerconstantcontract-balanceof-nile.json'))),
  );
  try {
    const treasury = treasuryFor(node);
    const build = await treasury.buildPayout!({
      coin: 'usdt_trc20',
      from: { kind: 'deposit', source: source(0) },
      recipients: [
        { reference: 'a', address: DESTINATION, units: 1_000_000n },
        { reference: 'b', address: pool(1), units: RECORDED_USDT - 1_000_000n },
      ],
      operatorAccounts: {},
    });
    t.is(build.movedUnits, RECORDED_USDT);
    t.is(build.operatorPaysUnits, 0n);
    for (const [i, step] of build.steps.entries()) {
      const tx = JSON.parse(step.unsigned.data);
      t.is(step.to, [DESTINATION, pool(1)][i]!);
      t.is(step.stage, 0);
      t.like(step.signer, { kind: 'deposit', path: "m/44'/195'/0'/0/0" });
      t.is(tx.raw_data.contract[0].type, 'TriggerSmartContract');
      t.is(tx.raw_data.contract[0].parameter.value.contract_address, hexAddress(NILE_TOKEN));
      t.is(tx.raw_data.fee_limit, 112_200);
      t.is(tx.raw_data.contract[0].parameter.value.data.slice(8, 72), hexAddress(step.to).slice(2).padStart(64, '0'));
      t.is(step.feeUnits, 935n * 100n + bandwidthBytes(tx.raw_data_hex) * 1000n);
      const verified = treasury.verifySigned(step, sign(step, depositPriv(0)));
      t.is(verified.kind, 'transaction');
    }
    const simulated = node.requests.filter((r) => r.body.function_selector === 'transfer(address,uint256)');
    t.deepEqual(
      simulated.map((r) => r.body.owner_address),
      [hexAddress(pool(0)), hexAddress(pool(0))],
    );
  } finally {
    await node.close();
  }
});

test('buildPayout() refusals: more tokens than held, TRX short of the fees, an address of another chain, no funding account, a zero amount', async (t) => {
  const node = await replay(
    baseAnswers(
      { [hexAddress(pool(0))]: accountAnswer(pool(0), (a) => (a.balance = 50_000)) },
      tokenAnswers(fixture('triggerconstantcontract-balanceof-nile.json')),
    ),
  );
  try {
    const treasury = treasuryFor(node);
    const payout = (units: bigint, address = DESTINATION) => ({
      coin: 'usdt_trc20',
      from: { kind: 'deposit' as const, source: source(0) },
      recipients: [{ reference: 'x', address, units }],
      operatorAccounts: {},
    });
    const short = await t.throwsAsync(() => treasury.buildPayout!(payout(RECORDED_USDT + 1n)));
    t.is(codeOf(short), 'treasury_insufficient_value');
    t.like((short as AppError).details, { coin: 'usdt_trc20', needed_units: (RECORDED_USDT + 1n).toString(), held_units: RECORDED_USDT.toString() });
    const fees = await t.throwsAsync(() => treasury.buildPayout!(payout(1n)));
    t.like((fees as AppError).details, { coin: 'trx', held_units: '50000' });
    t.is(codeOf(await t.throwsAsync(() => treasury.buildPayout!(payout(1n, '0x0000000000000000000000000000000000000001')))), 'treasury_wrong_network');
    t.is(codeOf(await t.throwsAsync(() => treasury.buildPayout!(payout(0n)))), 'validation_error');
    t.is(codeOf(await t.throwsAsync(() => treasury.buildPayout!({ ...payout(1n), from: { kind: 'operator' } as never }))), 'treasury_operator_account_missing');
  } finally {
    await node.close();
  }
});
