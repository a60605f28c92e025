import test from 'ava';
import type { AccountSignedFile } from '@gw/chain-api';
import { Address, Cell, loadMessage, SendMode } from '@ton/core';
import { deriveEd25519Path, keyPairFromSeed, mnemonicNew, mnemonicToPrivateKey, signVerify } from '@ton/crypto';
import { mnemonicToSeedSync } from '@scure/bip39';
import { slip10Ed25519 } from './account-keys.js';
import { accountPlan, signAccountPlan, internal, jettonTransferBody, step, tonKey, tonPayload, tonWallet, toNano } from './account-testing.js';
import { v5r1Wallet } from './ton-step.js';
import { MNEMONIC } from './testing.js';

const sign = signAccountPlan;
const friendly = (address: Address) => address.toString({ urlSafe: true, bounceable: false, testOnly: true });

test('SLIP-10 ed25519: the published test vector and @ton/crypto agree with the signer', async (t) => {
  // SLIP-0010 test vector 1 for ed25519, chain m/0'.
  const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
  t.is(Buffer.from(slip10Ed25519(seed, [0x80000000])).toString('hex'), '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
  const bip39Seed = Buffer.from(mnemonicToSeedSync(MNEMONIC));
  t.is(
    Buffer.from(
      slip10Ed25519(
        bip39Seed,
        [44, 607, 0].map((n) => n + 0x80000000),
      ),
    ).toString('hex'),
    (await deriveEd25519Path(bip39Seed, [44, 607, 0])).toString('hex'),
  );
});

test("the signer's V5R1 addresses are @ton/ton's", async (t) => {
  const key = await tonKey();
  for (const [globalId, subwallet] of [
    [-3, 0],
    [-3, 7],
    [-239, 32767],
  ] as const) {
    t.true(v5r1Wallet(key.publicKey, globalId, subwallet).address.equals(tonWallet(key.publicKey, subwallet, globalId).address));
  }
});

async function tonPlan() {
  const key = await tonKey();
  const destination = friendly(tonWallet(keyPairFromSeed(Buffer.alloc(32, 5)).publicKey, 0).address);
  const gas = tonWallet(key.publicKey, 0);
  const deposit = tonWallet(key.publicKey, 4);
  const jettonWallet = tonWallet(keyPairFromSeed(Buffer.alloc(32, 6)).publicKey, 0).address; // the deposit's jetton wallet, for the test
  const master = friendly(tonWallet(keyPairFromSeed(Buffer.alloc(32, 7)).publicKey, 0).address); // its jetton master (a test jetton the signer does not list)
  const topUp = await tonPayload(gas, 12, [internal({ to: deposit.address, value: toNano('0.06'), bounce: false })]);
  const jetton = await tonPayload(deposit, 0, [
    internal({ to: jettonWallet, value: toNano('0.05'), bounce: true, body: jettonTransferBody(7_000_000n, Address.parse(destination), gas.address) }),
  ]);
  const plan = accountPlan({ chain: 'ton', network: 'ton-testnet', coin: 'usdt_ton', method: 'jetton_batch', destination, moved_units: '7000000' }, [
    step({
      id: 'topup-4',
      signer: { address: friendly(gas.address), path: "m/44'/607'/0'/0'", kind: 'operator', role: 'gas' },
      format: 'ton-external',
      data: JSON.stringify({ payload: topUp.payload, subwallet: 0 }),
      nonce: 12n,
      to: friendly(deposit.address),
      moves: { ton: toNano('0.06') },
    }),
    step({
      id: 'transfer-4',
      stage: 2,
      signer: { address: friendly(deposit.address), path: "m/44'/607'/0'/4'" },
      format: 'ton-external',
      data: JSON.stringify({ payload: jetton.payload, subwallet: 4, jetton_master: master, jetton_wallet: friendly(jettonWallet) }),
      nonce: 0n,
      to: destination,
      moves: { usdt_ton: 7_000_000n },
    }),
  ]);
  return { plan, key, gas, deposit, destination, jettonWallet, master, topUp, jetton };
}

test('a TON plan: a gas top-up and a jetton transfer from V5R1 subwallets, signed as external messages @ton/ton would send', async (t) => {
  const { plan, key, gas, deposit, destination, jettonWallet, master, topUp, jetton } = await tonPlan();
  const run = await sign(plan, MNEMONIC, ['--allow-unlisted-token', master]);
  t.is(run.code, 0, run.stderr);
  const signed = JSON.parse(run.stdout) as AccountSignedFile;
  t.like(signed, { format: 'gateway-treasury-account-signed', chain: 'ton', network: 'ton-testnet', round: 1 });
  for (const [i, wallet, payload, seqno] of [
    [0, gas, topUp, 12],
    [1, deposit, jetton, 0],
  ] as const) {
    const message = loadMessage(Cell.fromBase64(signed.signed[i]!.signed).beginParse());
    t.is(message.info.type, 'external-in');
    t.true((message.info.dest as Address).equals(wallet.address));
    // The state init is attached to the first request of an undeployed wallet (seqno 0) only.
    t.is(message.init !== null && message.init !== undefined, seqno === 0);
    if (message.init) t.true(message.init.code!.equals(wallet.init.code) && message.init.data!.equals(wallet.init.data));
    // The body: the payload with the ed25519 signature of its hash appended (V5R1 signs at the tail).
    const unsigned = Cell.fromBase64(payload.payload);
    const body = message.body.beginParse();
    const bits = body.loadBits(body.remainingBits - 512);
    const signature = body.loadBuffer(64);
    t.true(signVerify(unsigned.hash(), signature, key.publicKey));
    t.true(bits.equals(unsigned.bits));
  }
  // Exactly the body @ton/ton makes with the secret key (ed25519 is deterministic).
  const expectedTopUp = gas.createTransfer({
    seqno: 12,
    secretKey: key.secretKey,
    timeout: topUp.timeout,
    sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
    messages: [internal({ to: deposit.address, value: toNano('0.06'), bounce: false })],
  } as Parameters<typeof gas.createTransfer>[0]) as unknown as Cell;
  t.true(loadMessage(Cell.fromBase64(signed.signed[0]!.signed).beginParse()).body.equals(expectedTopUp));

  t.true(run.stderr.includes(`sends     0.060000000 TON (60000000 nanoton) to ${friendly(deposit.address)}`));
  t.regex(run.stderr, /OWN: the signer of step transfer-4, m\/44'\/607'\/0'\/4'/);
  t.true(run.stderr.includes(`sends     7000000 usdt_ton (base units) to ${destination}  (token ${friendly(jettonWallet)})`));
  t.regex(run.stderr, /V5R1 subwallet 4, seqno 0/);
  // The TON the jetton transfer carries goes to the jetton wallet (EXTERNAL), its excess to the gas subwallet (OWN).
  t.true(
    run.stderr.includes(
      `sends     0.050000000 TON (50000000 nanoton) to ${friendly(jettonWallet)}  [attached to the jetton wallet of master ${master} (as the plan states; not computable offline)]`,
    ),
    run.stderr,
  );
  t.true(run.stderr.includes(`sends     up to 0.050000000 TON (50000000 nanoton) to ${friendly(gas.address)}  [the excess the jetton wallet returns`));
  t.is(run.stderr.match(/!!! EXTERNAL/g)?.length, 2);
  t.true(run.stderr.includes(`!!! UNLISTED token contract ${master}`));
  // Totals: the top-up and the TON carried to the jetton wallet; the excess is a maximum, listed apart and not added.
  t.true(
    run.stderr.includes(
      `Totals sent by these steps (own addresses included):\n  0.110000000 TON (110000000 nanoton)\n  7000000 usdt_ton (base units)\n  up to 0.050000000 TON (50000000 nanoton) to ${friendly(gas.address)} (OWN)`,
    ),
    run.stderr,
  );
});

test('a TON jetton transfer through an unlisted jetton master is refused without --allow-unlisted-token; the listed USDT master is required on mainnet', async (t) => {
  const { plan, master } = await tonPlan();
  t.regex((await sign(plan)).stderr, new RegExp(`refused \\(unsupported\\): step transfer-4 message #0: unlisted token contract ${master}`));
  // On mainnet usdt_ton is the signer's listed master: another one is refused, even when allowed.
  const key = await tonKey();
  const deposit = tonWallet(key.publicKey, 4, -239);
  const jettonWallet = tonWallet(keyPairFromSeed(Buffer.alloc(32, 6)).publicKey, 0, -239).address;
  const { payload } = await tonPayload(deposit, 0, [
    internal({ to: jettonWallet, value: toNano('0.05'), bounce: true, body: jettonTransferBody(7n, Address.parse(plan.destination), deposit.address) }),
  ]);
  const mainnet = accountPlan({ chain: 'ton', network: 'ton', coin: 'usdt_ton', method: 'jetton_batch', destination: plan.destination }, [
    step({
      id: 'transfer-4',
      signer: { address: deposit.address.toString({ bounceable: false }), path: "m/44'/607'/0'/4'" },
      format: 'ton-external',
      data: JSON.stringify({ payload, jetton_master: master, jetton_wallet: jettonWallet.toString() }),
      nonce: 0n,
      to: plan.destination,
      moves: { usdt_ton: 7n },
    }),
  ]);
  t.regex(
    (await sign(mainnet, MNEMONIC, ['--allow-unlisted-token', master])).stderr,
    /refused \(plan_mismatch\): step transfer-4 message #0: the token contract .* is not usdt_ton's on ton, EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs/,
  );
});

// The attack of the security review (issue 36): a jetton transfer message whose own destination is
// the attacker, in mode 130 (the wallet's whole balance), the jettons to the plan's destination, the
// excess to the attacker. It was signed with exit 0 and showed only the jetton transfer.
async function attackerPlan(stated: 'none' | 'attacker') {
  const { plan, master } = await tonPlan();
  const key = await tonKey();
  const deposit = tonWallet(key.publicKey, 4);
  const attacker = tonWallet(keyPairFromSeed(Buffer.alloc(32, 66)).publicKey, 0).address;
  const { payload } = await tonPayload(
    deposit,
    0,
    [internal({ to: attacker, value: 0n, bounce: true, body: jettonTransferBody(7_000_000n, Address.parse(plan.destination), attacker) })],
    SendMode.CARRY_ALL_REMAINING_BALANCE + SendMode.IGNORE_ERRORS,
  );
  const data = stated === 'none' ? payload : JSON.stringify({ payload, jetton_master: master, jetton_wallet: friendly(attacker) });
  return { plan: { ...plan, steps: [{ ...plan.steps[1]!, unsigned: { format: 'ton-external' as const, data } }] }, master, attacker: friendly(attacker) };
}

test('attack: a jetton transfer that sends the whole TON balance to an unstated address is refused', async (t) => {
  const { plan, master } = await attackerPlan('none');
  const run = await sign(plan, MNEMONIC, ['--allow-unlisted-token', master]);
  t.not(run.code, 0);
  t.regex(run.stderr, /refused \(unsupported\): step transfer-4 message #0: a jetton transfer whose step does not state its jetton_master and jetton_wallet/);
});

test('attack: the whole balance to a jetton wallet the plan states is shown as such, EXTERNAL, with the excess EXTERNAL', async (t) => {
  const { plan, master, attacker } = await attackerPlan('attacker');
  const run = await sign(plan, MNEMONIC, ['--allow-unlisted-token', master]);
  t.is(run.code, 0, run.stderr);
  t.true(run.stderr.includes(`sends     the whole balance of ton to ${attacker}  [attached to the jetton wallet of master ${master}`), run.stderr);
  t.true(run.stderr.includes(`sends     up to the whole balance of ton to ${attacker}  [the excess the jetton wallet returns`));
  t.true(run.stderr.includes(`  up to the whole balance of ton to ${attacker} (EXTERNAL)`));
  t.is(run.stderr.match(/!!! EXTERNAL/g)?.length, 3);
});

test('the whole balance (mode 128) of a plain transfer goes only to the plan destination', async (t) => {
  const { plan } = await tonPlan();
  const key = await tonKey();
  const deposit = tonWallet(key.publicKey, 4);
  const attacker = tonWallet(keyPairFromSeed(Buffer.alloc(32, 66)).publicKey, 0).address;
  const { payload } = await tonPayload(deposit, 0, [internal({ to: attacker, value: 0n, bounce: false })], SendMode.CARRY_ALL_REMAINING_BALANCE);
  const native = accountPlan({ chain: 'ton', network: 'ton-testnet', coin: 'ton', method: 'native', destination: plan.destination }, [
    { ...plan.steps[1]!, unsigned: { format: 'ton-external', data: payload }, to: friendly(attacker), moves: {} },
  ]);
  t.regex(
    (await sign(native)).stderr,
    /refused \(plan_mismatch\): step transfer-4 message #0: sends the whole balance \(mode 130\) to 0Q.*, which is not the plan's destination/,
  );
});

test("a TON wallet's own 24-word mnemonic signs its subwallets", async (t) => {
  const words = await mnemonicNew();
  const key = await mnemonicToPrivateKey(words);
  const wallet = tonWallet(key.publicKey, 2);
  const destination = friendly(tonWallet(keyPairFromSeed(Buffer.alloc(32, 5)).publicKey, 0).address);
  const { payload } = await tonPayload(wallet, 3, [internal({ to: Address.parse(destination), value: toNano('1.5'), bounce: false })]);
  const plan = accountPlan({ chain: 'ton', network: 'ton-testnet', coin: 'ton', method: 'native', destination }, [
    step({
      id: 'native-2',
      signer: { address: friendly(wallet.address), path: "m/44'/607'/0'/2'" },
      format: 'ton-external',
      data: payload,
      nonce: 3n,
      to: destination,
      moves: { ton: toNano('1.5') },
    }),
  ]);
  const run = await sign(plan, words.join(' '));
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /\(the TON mnemonic\)/);
  const body = loadMessage(Cell.fromBase64((JSON.parse(run.stdout) as AccountSignedFile).signed[0]!.signed).beginParse()).body.beginParse();
  body.skip(body.remainingBits - 512);
  t.true(signVerify(Cell.fromBase64(payload).hash(), body.loadBuffer(64), key.publicKey));
});

test('a TON native sweep in mode 128 is shown as the whole balance; a destroying mode (32) is refused', async (t) => {
  const key = await tonKey();
  const wallet = tonWallet(key.publicKey, 9);
  const destination = friendly(tonWallet(keyPairFromSeed(Buffer.alloc(32, 5)).publicKey, 0).address);
  const sweep = (mode: SendMode) => tonPayload(wallet, 5, [internal({ to: Address.parse(destination), value: 0n, bounce: false, body: 'invoice 42' })], mode);
  const plan = (payload: string) =>
    accountPlan({ chain: 'ton', network: 'ton-testnet', coin: 'ton', method: 'native', destination }, [
      step({
        id: 'native-9',
        signer: { address: friendly(wallet.address), path: "m/44'/607'/0'/9'" },
        format: 'ton-external',
        data: payload,
        nonce: 5n,
        to: destination,
        moves: { ton: toNano('3.2') },
      }),
    ]);
  const run = await sign(plan((await sweep(SendMode.CARRY_ALL_REMAINING_BALANCE)).payload));
  t.is(run.code, 0, run.stderr);
  t.true(run.stderr.includes(`sends     the whole balance of ton to ${destination}`));
  // @ton/ton adds IGNORE_ERRORS (2) to an external request's modes.
  t.true(run.stderr.includes(`#0 the whole balance of the wallet to ${destination}, comment "invoice 42" (mode 130)`), run.stderr);
  const destroying = await sign(plan((await sweep(SendMode.CARRY_ALL_REMAINING_BALANCE + SendMode.DESTROY_ACCOUNT_IF_ZERO)).payload));
  t.regex(destroying.stderr, /refused \(unsupported\): step native-9: send mode 162/);
});

test('TON refusals: a subwallet not of the key, a summary that disagrees, another network', async (t) => {
  const { plan, master } = await tonPlan();
  const wrongSigner = { ...plan, steps: [{ ...plan.steps[1]!, signer: { ...plan.steps[1]!.signer, path: "m/44'/607'/0'/5'" } }] };
  t.regex((await sign(wrongSigner)).stderr, /refused \(signer_key_mismatch\): step transfer-4: the secret's key at m\/44'\/607'\/0'\/5' is 0Q/);

  const moreMoved = { ...plan, steps: [{ ...plan.steps[1]!, moves: { usdt_ton: '7000001' } }] };
  t.regex(
    (await sign(moreMoved, MNEMONIC, ['--allow-unlisted-token', master])).stderr,
    /refused \(plan_mismatch\): step transfer-4: the summary says it moves 7000001 usdt_ton; its transaction moves 7000000/,
  );

  const otherSeqno = { ...plan, steps: [{ ...plan.steps[0]!, nonce: '13' }] };
  t.regex((await sign(otherSeqno)).stderr, /refused \(plan_mismatch\): step topup-4: the summary says seqno 13; its data has seqno 12/);

  // The same subwallet's payload made for mainnet (wallet id with global id -239).
  const key = await tonKey();
  const mainnet = tonWallet(key.publicKey, 4, -239);
  const { payload } = await tonPayload(mainnet, 0, [internal({ to: Address.parse(plan.destination), value: toNano('1'), bounce: false })]);
  const otherNetwork = { ...plan, steps: [{ ...plan.steps[1]!, unsigned: { format: 'ton-external' as const, data: payload } }] };
  t.regex((await sign(otherNetwork)).stderr, /refused \(wrong_network\): step transfer-4: the payload's wallet id is not subwallet 4 on ton-testnet/);
});
